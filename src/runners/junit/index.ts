import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

const shared = { ...command, ...results, ...canaries, ...conventions };

/** JUnit tests run by Maven (`mvn test`). */
export const maven: Runner = { name: "maven", ...shared };
/** JUnit tests run by Gradle (`gradle test`, `./gradlew test`). */
export const gradle: Runner = { name: "gradle", ...shared };
/** JUnit tests run by the JUnit console launcher or `junit4` itself. */
export const junit: Runner = { name: "junit", ...shared };
