// reshaper-run: graph files through the backend from the command line.
#include <algorithm>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <string>

#include <malloc.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <dnnl.h>
#include <tbb/global_control.h>

#include "core/rule_id.hpp"
#include "driver/graph_run.hpp"
#include "driver/huge_pages.hpp"
#include "driver/options.hpp"
#include "driver/report.hpp"
#include "kernels/cpu_isa.hpp"

using namespace reshaper;

namespace {
// Runs the driver again with glibc's malloc asking for transparent huge
// pages, where that pays (driver/huge_pages.hpp); returns when it does not
// or cannot. Sanitizer builds' allocators are their own: not there.
void run_again_with_huge_pages([[maybe_unused]] char **argv, [[maybe_unused]] const driver::options &opts) {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // Perf mode keeps the process as it is, as it keeps glibc's mmap threshold.
    if (opts.mode == driver::run_mode::perf || getauxval(AT_SECURE)) return; // a secure process drops GLIBC_TUNABLES
    std::uint64_t bytes = 0;
    for (const std::string &path : opts.files) {
        std::error_code ec;
        if (const auto size = std::filesystem::file_size(path, ec); !ec) bytes += size;
    }
    if (bytes < driver::huge_page_graph_bytes) return;
    std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
    const std::string mode((std::istreambuf_iterator<char>(mode_file)), std::istreambuf_iterator<char>());
    const std::optional<std::string> tunables = driver::huge_page_tunables(mode, std::getenv("GLIBC_TUNABLES"), bytes);
    if (!tunables) return;
    std::error_code ec;
    // The binary's own path, not /proc/self/exe: the process keeps its name.
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
    execv(self.c_str(), argv);
    // Should it fail, this process runs on as it is.
#endif
}

// Volatile: a pointer only ever written is otherwise optimised away, and
// the run it held became a leak to LeakSanitizer.
const driver::graph_run *volatile left_to_exit = nullptr;
} // namespace

int main(int argc, char **argv) {
    driver::options opts;
    try {
        opts = driver::parse_options(argc, argv);
    } catch (const impl::error &e) {
        std::fprintf(stderr, "reshaper-run: %s\n%s", e.what(), driver::usage_text());
        return 2;
    }
    if (opts.help) {
        std::fputs(driver::help_text(), stdout);
        return 0;
    }
    if (opts.version) {
        const dnnl_version_t *dnnl = dnnl_version();
        // The kernels' SIMD level too: speeds differ by level and CPU, so a
        // figure is only comparable with the level it ran at.
        const std::string level(impl::to_string(impl::active_cpu_isa()));
        const std::string detected(impl::to_string(impl::detected_cpu_isa()));
        std::printf("reshaper-run: reshaper %s, oneDNN %d.%d.%d (%s), kernels %s (CPU: %s)\n",
                    RESHAPER_VERSION_STRING, dnnl->major, dnnl->minor, dnnl->patch, dnnl->hash,
                    level.c_str(), detected.c_str());
        return 0;
    }
    run_again_with_huge_pages(argv, opts);
    // Blocks of 256 KiB and more straight from the system and back to it
    // when freed, at a fixed threshold: glibc raises its own to the size of
    // each such block freed (a large graph file's text, 30 MB), after which
    // the arrays of the stages after it (topology, partitions) came from
    // the heap and their pages stayed resident once freed, to be walked
    // through again by the checks' small allocations: 157 against 125 MB
    // peak checking 100,000 single-transpose partitions (a 29 MiB file).
    // Perf mode keeps glibc's own, which reuses the buffers it times.
    if (opts.mode != driver::run_mode::perf) mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    // The kernels' level and tuning, read now so that an unusable
    // RESHAPER_MAX_CPU_ISA or RESHAPER_KERNEL_TUNING is said in every mode and
    // on every CPU, not only where a kernel that follows it runs (the tuning
    // is read by the AVX-512 level only).
    impl::active_cpu_isa();
    impl::active_kernel_tuning();
    std::unique_ptr<tbb::global_control> thread_limit;
    if (opts.threads) {
        // oneDNN's CPU runtime here is OpenMP: it reads this before its first use.
        setenv("OMP_NUM_THREADS", std::to_string(*opts.threads).c_str(), 1);
        thread_limit = std::make_unique<tbb::global_control>(
            tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(*opts.threads));
    }

    int worst = 0;
    for (const std::string &path : opts.files) {
        auto owned = std::make_unique<const driver::graph_run>(driver::run_graph_file(path, opts));
        const driver::graph_run &run = *owned;
        int code = driver::exit_code(run);
        try {
            if (opts.report == driver::report_format::json) driver::write_json_report(stdout, run, opts);
            else driver::write_text_report(stdout, run, opts);
        } catch (const std::bad_alloc &) {
            // The report is written as it is made, in small pieces; should
            // even those not fit, the run still ends with an error, not an abort.
            const std::string_view id = impl::to_string(impl::rule::memory_limit); // allocates nothing
            std::fprintf(stderr, "\nreshaper-run: out of memory while writing the report of %s [%.*s]\n",
                         path.c_str(), static_cast<int>(id.size()), id.data());
            code = std::max(code, 3);
        }
        std::fputc('\n', stdout);
        std::fflush(stdout);
        worst = std::max(worst, code);
        // The last file's run is left to the operating system, as the process
        // ends next: freeing a 100,000-partition run one allocation at a time
        // took 35-40 ms of its 1.1 s. Reachable from here, it is no leak.
        if (&path == &opts.files.back()) left_to_exit = owned.release();
    }
    return worst;
}
