// The verbose channel (RESHAPER_VERBOSE), shared by every layer. Lines are
//   reshaper_verbose,<event>,<field>,<field>,...
// with fields that never hold a comma outside square brackets (see
// verbose_text), so a parser splits at commas outside [...]. docs/verbose.md
// lists every event and its fields.
//   level 1: compile, execute (one line each)
//   level 2: + cache (hit, miss, evict), partition (why each op was or was
//            not claimed), lowering (the decision and its reason)
//   level 3: + stage (time of each compile stage)
// RESHAPER_VERBOSE_FILE=path appends the lines to that file instead of
// stderr. Off (level 0), a check costs one relaxed atomic load.
#pragma once

#include <string>
#include <string_view>

namespace reshaper::impl {

// RESHAPER_VERBOSE, read once from the environment; 0 when unset or not a
// positive integer. set_verbose_level overrides it (a driver flag, tests).
int verbose_level();
void set_verbose_level(int level);

// Writes "reshaper_verbose," + fields + "\n" in one call under a lock, so
// lines from concurrent threads do not interleave. The first line of a
// process is preceded by "reshaper_verbose,info,..." naming the level and the
// line format's version.
void verbose_print(std::string_view fields);

// Free text as one field: commas outside [...] become ';'.
std::string verbose_text(std::string_view text);

// Redirects the lines to `path` (appending), "" for stderr; for tests. The
// environment's RESHAPER_VERBOSE_FILE is read once otherwise.
void set_verbose_file(const std::string &path);

} // namespace reshaper::impl
