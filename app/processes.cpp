// The processes of a run split over several (app/processes.h): MPI, when the build has it.
#include "processes.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#ifdef ALLUVIUM_MPI
#include <mpi.h>
#endif

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
        std::vector<int> counts(bytes.size()), at(bytes.size());
        size_t offset = 0;
        for (size_t r = 0; r < bytes.size(); ++r) {
            counts[r] = byteCount(bytes[r]);
            at[r] = byteCount(offset);
            offset += bytes[r];
        }
        MPI_Allgatherv(mine, counts[size_t(rank())], MPI_BYTE, all, counts.data(), at.data(), MPI_BYTE, MPI_COMM_WORLD);
    }
    void swap(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from) override {
        MPI_Sendrecv(send, byteCount(send_bytes), MPI_BYTE, to < 0 ? MPI_PROC_NULL : to, 0, recv, byteCount(recv_bytes),
                     MPI_BYTE, from < 0 ? MPI_PROC_NULL : from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double maxOf(double mine) override {
        double all = mine;
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return all;
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
        if (g_processes.rank > 0) { // rank 0 speaks for the run
            g_stderr = dup(STDERR_FILENO);
            const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (null >= 0) {
                dup2(null, STDERR_FILENO);
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

std::vector<double> everyProcess(double value) {
    std::vector<double> all(size_t(g_processes.size), value);
    if (g_processes.transport)
        g_processes.transport->allGather(&value, all.data(), std::vector<size_t>(all.size(), sizeof(double)));
    return all;
}

int refuse(int status, const std::string& line) {
    if (g_processes.root()) std::fprintf(stderr, "alluvium: %s\n", line.c_str());
    return status;
}

void endProcesses() {
#ifdef ALLUVIUM_MPI
    if (g_mpi) MPI_Finalize();
    g_mpi = false;
#endif
}

} // namespace alluvium
