// The processes of a run split over several (app/processes.h): MPI, when the build has it.
#include "processes.h"

#include <algorithm>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#ifdef ALLUVIUM_MPI
#include <mpi.h>
#endif

#include "io/errors.h"
#include "params.h"

namespace alluvium {

namespace {

Processes g_processes;
int g_stderr = STDERR_FILENO; // where a quiet process's failure still goes

#ifdef ALLUVIUM_MPI
// OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx and PMI launchers theirs.
bool startedByMpirun() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
        if (std::getenv(v) != nullptr) return true;
    return false;
}

int byteCount(size_t bytes) {
    if (bytes > size_t(INT_MAX))
        throw gpu::DeviceError("a message of " + std::to_string(bytes >> 20) +
                               " MiB between processes exceeds MPI's 2 GiB: a smaller grid per process");
    return static_cast<int>(bytes);
}

class MpiTransport final : public gpu::Transport {
public:
    int rank() const override { return g_processes.rank; }
    int size() const override { return g_processes.size; }
    void allGather(const void* mine, void* all, const std::vector<size_t>& bytes) override {
        gatherInRounds(mine, all, bytes, true);
    }
    void gatherToRoot(const void* mine, void* all, const std::vector<size_t>& bytes) override {
        gatherInRounds(mine, all, bytes, false);
    }
    void gatherInRounds(const void* mine, void* all, const std::vector<size_t>& bytes, bool everyone) {
        // MPI counts in int: a whole field past 2 GiB (16384 x 8192 cells of outflow) travels in
        // rounds of at most kRound bytes in all, every process taking part in each.
        constexpr size_t kRound = size_t(1) << 28;
        const size_t n = bytes.size(), most = *std::max_element(bytes.begin(), bytes.end());
        std::vector<size_t> start(n, 0);
        for (size_t r = 1; r < n; ++r) start[r] = start[r - 1] + bytes[r - 1];
        const size_t per_round = std::max<size_t>(kRound / n, 1);
        std::vector<char> round;
        for (size_t done = 0; done < most; done += per_round) {
            std::vector<int> counts(n), at(n);
            size_t total = 0;
            for (size_t r = 0; r < n; ++r) {
                counts[r] = byteCount(std::min(per_round, bytes[r] - std::min(bytes[r], done)));
                at[r] = byteCount(total);
                total += size_t(counts[r]);
            }
            const size_t me = size_t(rank());
            const char* from = static_cast<const char*>(mine) + std::min(done, bytes[me]);
            if (!everyone) {
                round.resize(me == 0 ? total : 0);
                MPI_Gatherv(from, counts[me], MPI_BYTE, round.data(), counts.data(), at.data(), MPI_BYTE, 0,
                            MPI_COMM_WORLD);
                if (me != 0) continue;
            } else {
                round.resize(total);
                MPI_Allgatherv(from, counts[me], MPI_BYTE, round.data(), counts.data(), at.data(), MPI_BYTE,
                               MPI_COMM_WORLD);
            }
            for (size_t r = 0; r < n; ++r)
                if (counts[r] > 0)
                    std::memcpy(static_cast<char*>(all) + start[r] + done, round.data() + at[r], size_t(counts[r]));
        }
    }
    void allToAll(const std::vector<std::vector<char>>& send, std::vector<char>& recv) override {
        const size_t n = send.size();
        std::vector<int> send_counts(n), send_at(n), recv_counts(n), recv_at(n);
        std::vector<char> out;
        for (size_t r = 0; r < n; ++r) {
            send_counts[r] = byteCount(send[r].size());
            send_at[r] = byteCount(out.size());
            out.insert(out.end(), send[r].begin(), send[r].end());
        }
        MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        size_t total = 0;
        for (size_t r = 0; r < n; ++r) {
            recv_at[r] = byteCount(total);
            total += size_t(recv_counts[r]);
        }
        recv.resize(total);
        MPI_Alltoallv(out.data(), send_counts.data(), send_at.data(), MPI_BYTE, recv.data(), recv_counts.data(),
                      recv_at.data(), MPI_BYTE, MPI_COMM_WORLD);
    }
    void swap(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from) override {
        MPI_Sendrecv(send, byteCount(send_bytes), MPI_BYTE, to < 0 ? MPI_PROC_NULL : to, 0, recv, byteCount(recv_bytes),
                     MPI_BYTE, from < 0 ? MPI_PROC_NULL : from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
};

MpiTransport g_transport;
bool g_mpi = false;
#endif

} // namespace

const Processes& startProcesses(int* argc, char*** argv) {
#ifdef ALLUVIUM_MPI
    if (startedByMpirun()) {
        MPI_Init(argc, argv);
        g_mpi = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &g_processes.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_processes.size);
        if (g_processes.size > 1) g_processes.transport = &g_transport;
        MPI_Comm node = MPI_COMM_NULL; // the processes sharing this machine (and its devices)
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &g_processes.node_rank);
        MPI_Comm_free(&node);
        if (g_processes.rank > 0) { // rank 0 speaks for the run (and alone prints help, the bench)
            g_stderr = dup(STDERR_FILENO);
            const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (null >= 0) {
                dup2(null, STDERR_FILENO);
                dup2(null, STDOUT_FILENO);
                close(null);
            }
        }
    }
#else
    (void)argc;
    (void)argv;
#endif
    return g_processes;
}

const Processes& processes() { return g_processes; }

int fail(int status, const std::string& line) {
    if (g_processes.size <= 1) {
        std::fprintf(stderr, "alluvium: %s\n", line.c_str());
        return status;
    }
    const std::string text = "alluvium: process " + std::to_string(g_processes.rank) + " of " +
                             std::to_string(g_processes.size) + ": " + line + "\n";
    if (write(g_stderr, text.data(), text.size()) < 0) { /* nowhere left to say it */
    }
#ifdef ALLUVIUM_MPI
    MPI_Abort(MPI_COMM_WORLD, status); // the others may be waiting on this one
#endif
    return status;
}

std::string oneLine(const char* text) {
    std::string line = text ? text : "";
    for (char& c : line)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    return line;
}

std::vector<double> everyProcess(double value) {
    return g_processes.transport ? gpu::everyValue(*g_processes.transport, value) : std::vector<double>{value};
}

double mostOfProcesses(double value) {
    double most = value;
    for (double v : everyProcess(value)) most = std::max(most, v);
    return most;
}

double sumOfProcesses(double value) {
    double sum = 0.0;
    for (double v : everyProcess(value)) sum += v;
    return sum;
}

std::string fromRoot(const std::string& text) {
#ifdef ALLUVIUM_MPI
    if (g_processes.size > 1) {
        unsigned long long size = text.size();
        MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        std::string out = g_processes.root() ? text : std::string(size, '\0');
        MPI_Bcast(out.data(), byteCount(out.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
        return out;
    }
#endif
    return text;
}

void agree(const std::function<void()>& step) {
    if (g_processes.size <= 1) return step();
    std::string why;
    int status = 0;
    try {
        step();
    } catch (const InputError& e) {
        why = e.what();
        status = 2;
    } catch (const ParamError& e) {
        why = e.what();
        status = 2;
    } catch (const gpu::SplitError& e) {
        why = e.what();
        status = 3;
    }
    const std::vector<double> all = everyProcess(double(status));
    const auto first = std::find_if(all.begin(), all.end(), [](double s) { return s != 0.0; });
    if (first == all.end()) return;
    if (first - all.begin() == g_processes.rank) {
        const std::string who = g_processes.root() ? "" : "process " + std::to_string(g_processes.rank) + ": ";
        const std::string text = "alluvium: " + who + oneLine(why.c_str()) + "\n";
        if (write(g_stderr, text.data(), text.size()) < 0) { /* nowhere left to say it */
        }
    }
    throw AgreedFailure{int(*first)};
}

int refuse(int status, const std::string& line) {
    if (g_processes.root()) std::fprintf(stderr, "alluvium: %s\n", line.c_str());
    return status;
}

namespace {

// The host memory this machine has available, in bytes (0: unknown).
double availableHostBytes() {
    if (const char* env = std::getenv("ALLUVIUM_HOST_MEMORY_MB"); env && *env) return std::atof(env) * 1048576.0;
    FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0.0;
    char line[256];
    double kib = 0.0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
    std::fclose(f);
    return kib * 1024.0;
}

} // namespace

void checkRootHostMemory(int width, int height, double bytes_per_cell, const std::string& what) {
    const double need = double(width) * double(height) * bytes_per_cell, have = availableHostBytes();
    if (have <= 0.0 || need <= have) return;
    auto amount = [](double bytes) {
        char t[32];
        std::snprintf(t, sizeof t, bytes < 1e9 ? "%.0f MB" : "%.1f GB", bytes < 1e9 ? bytes / 1e6 : bytes / 1e9);
        return std::string(t);
    };
    char text[400];
    std::snprintf(text, sizeof text,
                  "rank 0 holds the whole grid on the host: a %dx%d grid needs about %s there (%.0f bytes a cell: "
                  "%s), this machine has %s available: a smaller grid, or rank 0 on a larger machine",
                  width, height, amount(need).c_str(), bytes_per_cell, what.c_str(), amount(have).c_str());
    throw gpu::SplitError(text);
}

void endProcesses() {
#ifdef ALLUVIUM_MPI
    if (g_mpi) MPI_Finalize();
    g_mpi = false;
#endif
}

} // namespace alluvium
