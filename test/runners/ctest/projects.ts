/** Small real CMake projects for the CTest runner's tests: plain `add_test` executables, and GoogleTest. */

const LIB = {
  "include/slug.h": "#pragma once\n#include <string>\n\nstd::string slug(const std::string& s);\n",
  "src/slug.cpp":
    "#include \"slug.h\"\n\nstd::string slug(const std::string& s) {\n  std::string out;\n  for (char c : s) out += (c == ' ') ? '_' : c;\n  return out;\n}\n",
  "include/total.h": "#pragma once\n\nint total(int a, int b);\n",
  "src/total.cpp": '#include "total.h"\n\nint total(int a, int b) {\n  return a + b;\n}\n',
};

/** The one-line fix of both projects' bug (`_` where `-` is wanted). */
export const SLUG_BUG = { file: "src/slug.cpp", from: "? '_' : c", to: "? '-' : c" };

/** Plain executables, one CTest test each (a failed `assert` aborts: the test fails). */
export const PLAIN_FILES: Record<string, string> = {
  ...LIB,
  "CMakeLists.txt": [
    "cmake_minimum_required(VERSION 3.16)",
    "project(shop CXX)",
    "set(CMAKE_CXX_STANDARD 17)",
    "add_library(shop src/slug.cpp src/total.cpp)",
    "target_include_directories(shop PUBLIC include)",
    "enable_testing()",
    "add_subdirectory(tests)",
    "",
  ].join("\n"),
  "tests/CMakeLists.txt": ["slug_spaces", "slug_plain", "total_adds"]
    .map(
      (t) =>
        `add_executable(${t} ${t}.cpp)\ntarget_link_libraries(${t} shop)\nadd_test(NAME ${t} COMMAND ${t})\n`,
    )
    .join(""),
  "tests/slug_spaces.cpp":
    '#include <cassert>\n#include "slug.h"\n\nint main() {\n  assert(slug("a b") == "a-b");\n  return 0;\n}\n',
  "tests/slug_plain.cpp":
    '#include <cassert>\n#include "slug.h"\n\nint main() {\n  assert(slug("ab") == "ab");\n  return 0;\n}\n',
  "tests/total_adds.cpp":
    '#include <cassert>\n#include "total.h"\n\nint main() {\n  assert(total(1, 2) == 3);\n  return 0;\n}\n',
};

/** GoogleTest tests, each registered with CTest by `gtest_discover_tests` (ids `Suite.Name`). */
export const GTEST_FILES: Record<string, string> = {
  ...LIB,
  "CMakeLists.txt": [
    "cmake_minimum_required(VERSION 3.16)",
    "project(shop CXX)",
    "set(CMAKE_CXX_STANDARD 17)",
    "find_package(GTest REQUIRED)",
    "include(GoogleTest)",
    "add_library(shop src/slug.cpp src/total.cpp)",
    "target_include_directories(shop PUBLIC include)",
    "enable_testing()",
    "add_executable(shop_tests tests/slug_test.cpp tests/total_test.cpp)",
    "target_link_libraries(shop_tests shop GTest::gtest_main)",
    "gtest_discover_tests(shop_tests)",
    "",
  ].join("\n"),
  "tests/slug_test.cpp":
    '#include <gtest/gtest.h>\n#include "slug.h"\n\nTEST(Slug, Spaces) { EXPECT_EQ(slug("a b"), "a-b"); }\nTEST(Slug, Plain) { EXPECT_EQ(slug("ab"), "ab"); }\n',
  "tests/total_test.cpp":
    '#include <gtest/gtest.h>\n#include "total.h"\n\nTEST(Total, Adds) { EXPECT_EQ(total(1, 2), 3); }\n',
};
