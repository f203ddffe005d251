import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";
import type { JUnitTool } from "./tools.ts";

const runner = (name: JUnitTool): Runner => ({
  name,
  ...command[name],
  ...results[name],
  ...canaries[name],
  ...conventions[name],
});

/** JUnit tests run by Maven (`mvn test`). */
export const maven: Runner = runner("maven");
/** JUnit tests run by Gradle (`gradle test`, `./gradlew test`). */
export const gradle: Runner = runner("gradle");
/** JUnit tests run by the JUnit console launcher or `junit4` itself. */
export const junit: Runner = runner("junit");
