// reshaper-run: graph files through the backend from the command line.
#include <algorithm>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

#include <dnnl.h>
#include <tbb/global_control.h>

#include "driver/graph_run.hpp"
#include "driver/options.hpp"
#include "driver/report.hpp"
#include "kernels/cpu_isa.hpp"

using namespace reshaper;

// gperftools' tcmalloc, when the driver links it (RESHAPER_DRIVER_TCMALLOC):
// nothing otherwise.
extern "C" int MallocExtension_SetNumericProperty(const char *property, std::size_t value) __attribute__((weak));

namespace {
// Volatile: a pointer only ever written is otherwise optimised away, and
// the run it held became a leak to LeakSanitizer.
const driver::graph_run *volatile left_to_exit = nullptr;
} // namespace

int main(int argc, char **argv) {
    // tcmalloc keeps the pages of freed spans by default: a large graph's
    // file text, released once read, and the memory of each phase stayed
    // resident beside the next (the peak of checking 100,000 partitions
    // read from 38.5 MB: 200 MB, and 157 MB with freed pages returned).
    if (MallocExtension_SetNumericProperty)
        MallocExtension_SetNumericProperty("tcmalloc.aggressive_memory_decommit", 1);
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
        if (opts.report == driver::report_format::json) {
            const std::string report = driver::json_report(run, opts);
            std::fwrite(report.data(), 1, report.size(), stdout);
        } else {
            driver::write_text_report(stdout, run, opts);
        }
        std::fputc('\n', stdout);
        std::fflush(stdout);
        worst = std::max(worst, driver::exit_code(run));
        // The last file's run is left to the operating system, as the process
        // ends next: freeing a 100,000-partition run one allocation at a time
        // took 35-40 ms of its 1.1 s. Reachable from here, it is no leak.
        if (&path == &opts.files.back()) left_to_exit = owned.release();
    }
    return worst;
}
