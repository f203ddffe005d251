/** The tools that run JUnit tests: Maven, Gradle, and the JUnit launcher (or `junit4`) itself. */
export type JUnitTool = "maven" | "gradle" | "junit";
