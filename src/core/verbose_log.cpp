#include "core/verbose_log.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace reshaper::impl {

namespace {

std::atomic<int> &level_setting() {
    static std::atomic<int> level = [] {
        const char *value = std::getenv("RESHAPER_VERBOSE");
        if (!value) return 0;
        char *end = nullptr;
        const long parsed = std::strtol(value, &end, 10);
        return end != value && parsed > 0 ? static_cast<int>(parsed > 3 ? 3 : parsed) : 0;
    }();
    return level;
}

// Where the lines go: stderr, or the file RESHAPER_VERBOSE_FILE names.
struct sink {
    std::mutex mutex;
    std::FILE *file = nullptr; // nullptr: stderr
    bool header_written = false;

    sink() {
        const char *path = std::getenv("RESHAPER_VERBOSE_FILE");
        if (path && *path) open(path);
    }
    ~sink() {
        if (file) std::fclose(file);
    }
    void open(const std::string &path) {
        if (file) std::fclose(file);
        file = nullptr;
        header_written = false;
        if (path.empty()) return;
        std::string why;
        file = open_for_appending(path, why);
        if (!file)
            std::fprintf(stderr, "reshaper_verbose,info,error,cannot open RESHAPER_VERBOSE_FILE %s (%s); "
                                 "writing to stderr\n", path.c_str(), why.c_str());
    }

    // fopen(path, "a"), except that opening never waits: a FIFO that no
    // process reads made fopen block for good (O_NONBLOCK makes that open
    // fail with ENXIO instead). Once open, writes block as usual.
    static std::FILE *open_for_appending(const std::string &path, std::string &why) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
        if (fd < 0) {
            why = errno == ENXIO ? "a FIFO or socket that no process reads" : std::strerror(errno);
            return nullptr;
        }
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        std::FILE *f = ::fdopen(fd, "a");
        if (!f) {
            why = std::strerror(errno);
            ::close(fd);
        }
        return f;
    }
};

sink &the_sink() {
    static sink s;
    return s;
}

} // namespace

int verbose_level() { return level_setting().load(std::memory_order_relaxed); }

void set_verbose_level(int level) { level_setting().store(level, std::memory_order_relaxed); }

void set_verbose_file(const std::string &path) {
    sink &s = the_sink();
    std::lock_guard lock(s.mutex);
    s.open(path);
}

void verbose_print(std::string_view fields) {
    std::string line;
    line.reserve(fields.size() + 20);
    line += "reshaper_verbose,";
    line += fields;
    line += '\n';
    sink &s = the_sink();
    std::lock_guard lock(s.mutex);
    std::FILE *out = s.file ? s.file : stderr;
    if (!s.header_written) {
        const std::string header = "reshaper_verbose,info,format 1,level " +
                                   std::to_string(verbose_level()) +
                                   ",fields: event followed by its fields (docs/verbose.md)\n";
        std::fwrite(header.data(), 1, header.size(), out);
        s.header_written = true;
    }
    std::fwrite(line.data(), 1, line.size(), out);
    std::fflush(out);
}

std::string verbose_text(std::string_view text) {
    std::string out(text);
    int depth = 0;
    for (char &c : out) {
        if (c == '[') ++depth;
        else if (c == ']' && depth > 0) --depth;
        else if (c == ',' && depth == 0) c = ';';
    }
    return out;
}

} // namespace reshaper::impl
