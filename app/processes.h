// The processes of one run split over several (mpirun, OpenMPI): each holds one block of the grid
// (gpu/blocks.h) on its own device. A build without MPI, or a program not started by mpirun, is
// one process, as always.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "blocks.h"

namespace alluvium {

struct Processes {
    int rank = 0, size = 1;
    int node_rank = 0;                   // among the processes on this machine: which of its devices to take
    gpu::Transport* transport = nullptr; // set when size > 1
    bool root() const { return rank == 0; }
};

// Starts MPI when mpirun started this process (and the build has MPI): once, first in main. The
// other processes' stderr goes quiet (rank 0 speaks for the run) but for their failures.
const Processes& startProcesses(int* argc, char*** argv);
const Processes& processes();
// what() as one line: a library's message may hold newlines or control characters.
std::string oneLine(const char* text);
// A failure's one line ("alluvium: ..."), then its exit status. Of a run of several processes:
// the line names the process, and every process ends (the others may wait on this one).
int fail(int status, const std::string& line);
// What every process finds alike (a bad option, a file that cannot be read): rank 0 says it,
// every process returns the status.
int refuse(int status, const std::string& line);
// Every process's `value`, rank after rank (one process: its own); their largest and their sum.
std::vector<double> everyProcess(double value);
double mostOfProcesses(double value);
double sumOfProcesses(double value);
// Rank 0's `text`, on every process (one process: its own).
std::string fromRoot(const std::string& text);
// A failure the processes agreed on (agree()), said once already: main returns its status.
struct AgreedFailure {
    int status;
};
// Runs `step` (what reads the input: files, presets, options) on every process; if it throws an
// InputError or ParamError (status 2) or a SplitError (status 3) on any of them, the first of
// those says why in one line and every process throws AgreedFailure, so none waits for another
// that gave up.
void agree(const std::function<void()>& step);
// Rank 0 of a split run holds whole fields of the grid on the host (the input it scatters, the
// fields gathered for the outputs): `bytes_per_cell` of them at its peak. Throws a SplitError
// naming what it needs when this machine has less memory available (MemAvailable;
// ALLUVIUM_HOST_MEMORY_MB stands in for it, for tests or to keep a margin).
void checkRootHostMemory(int width, int height, double bytes_per_cell, const std::string& what);
// MPI's end, before main returns.
void endProcesses();

} // namespace alluvium
