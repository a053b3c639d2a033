// Runs a shell command (the driver, from the outside) and collects what it
// printed on stdout and its exit code: the one popen loop the test binaries share.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace reshaper::test {

struct command_output {
    int exit_code = -1; // -1: did not start, or ended by a signal
    std::string out;
};

inline command_output run_command(const std::string &command) {
    command_output r;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

} // namespace reshaper::test
