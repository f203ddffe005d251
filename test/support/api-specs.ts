import type { ApiSpecLike } from "../../src/agents/api-call.ts";

/** The eight search APIs of the design, as the agents see them (for parser and proxy tests). */
export const TEST_API_SPECS: ApiSpecLike[] = [
  { name: "search_class", params: ["class_name"], description: "a class's signature" },
  { name: "search_class_in_file", params: ["class_name", "file_name"] },
  { name: "search_method", params: ["method_name"] },
  { name: "search_method_in_class", params: ["method_name", "class_name"] },
  { name: "search_method_in_file", params: ["method_name", "file_name"] },
  { name: "search_code", params: ["code_str"] },
  { name: "search_code_in_file", params: ["code_str", "file_name"] },
  { name: "get_code_around_line", params: ["file_name", "line_no", { name: "window", optional: true }] },
];
