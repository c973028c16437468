// A progress bar on stderr: redrawn in place on a terminal, a line per quarter otherwise.
#pragma once
#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace alluvium {

class Progress {
public:
    Progress(const char* what, int total) : what_(what), total_(total), tty_(isatty(2) != 0) {}
    void update(int done) {
        const double frac = total_ > 0 ? double(done) / total_ : 1.0;
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const double rate = secs > 0 ? done / secs : 0.0;
        if (tty_) {
            char bar[31];
            const int filled = static_cast<int>(frac * 30.0);
            for (int i = 0; i < 30; ++i) bar[i] = i < filled ? '#' : '.';
            bar[30] = 0;
            std::fprintf(stderr, "\r%s [%s] %3d%% %d/%d %.1f/s ", what_, bar, int(frac * 100.0), done, total_, rate);
            if (done >= total_) std::fprintf(stderr, "\n");
        } else if (int quarter = static_cast<int>(frac * 4.0); quarter > last_quarter_) {
            last_quarter_ = quarter;
            std::fprintf(stderr, "%s %3d%% %d/%d %.1f/s\n", what_, int(frac * 100.0), done, total_, rate);
        }
        std::fflush(stderr);
    }

private:
    const char* what_;
    int total_;
    bool tty_;
    int last_quarter_ = 0;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace alluvium
