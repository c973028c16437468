// The viewer's history: undo and redo of strokes, branches, time scrubbing. Snapshots
// of the whole state live on the GPU (gpu/snapshot.h); here is the tree they form and the
// requests of the keys and the panel (state.h's HistoryControl).
//
// A snapshot is taken on the frame a stroke starts to change the state (before the brush runs:
// "stroke"), on the first frame after it ends ("stroke end"), and every N simulated seconds
// ("timed"). Each snapshot's parent is the one the state was last stored into or restored from
// (the head); a snapshot whose parent already has a child starts a new branch. Going anywhere
// (undo, redo, the timeline, the list, Home / End / , / .) while the state has moved on from the
// head first stores it ("tip"), so nothing is lost until the budget drops it. Undo goes to the
// nearest "stroke" above the state; redo follows the branch last walked down to the next "stroke
// end" (or its end). The work is recorded into the frame's command buffer; nothing waits.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <vulkan/vulkan.h>

#include "app.h"
#include "snapshot.h"

namespace alluvium::viewer {

class History {
public:
    // budget_bytes 0: history off (`off_reason` says why, in the panel and the report).
    History(const gpu::Context& ctx, gpu::Simulation& sim, gpu::Brush& brush, uint64_t budget_bytes,
            const std::string& off_reason);
    ~History();
    bool enabled() const { return store_ != nullptr; }

    // At the start of a frame's GPU work, before the springs, the brush and the steps: carries out
    // the requests in app.state.history and takes the snapshots due. `steps`: the steps the frame
    // runs; `edits`: the brush or the springs change the state this frame. `submission` numbers
    // the frame (collect() reports it done). Returns whether it recorded GPU work.
    bool beginFrame(VkCommandBuffer cmd, App& app, int steps, bool edits, uint64_t submission);
    // After the fence of frame `submission`: what it stored is known. `gpu_ms`: the GPU time of
    // its history work (timestamps).
    void collect(uint64_t submission, double gpu_ms);
    // The state was replaced from outside (reset, a new terrain): it descends from no snapshot.
    void detach() { head_ = -1; }

    // The report's "history" (after the device is idle): counts, bytes, every snapshot held with
    // its time and the digest of the state it holds, and the actions taken.
    nlohmann::json report();
    // One line for `view --bench-frames`: snapshots taken and dropped, their mean GPU time and
    // size, the bytes held (after the device is idle).
    std::string summary();

private:
    struct Node;
    Node* node(int id);
    int store(VkCommandBuffer cmd, App& app, const char* kind, uint64_t submission);
    bool goTo(VkCommandBuffer cmd, App& app, int target, const char* action, uint64_t submission);
    bool movedOn(const App& app) const;
    std::vector<int> timeline() const;
    void publish(App& app);

    gpu::Simulation& sim_;
    std::unique_ptr<gpu::SnapshotStore> store_;
    std::string off_reason_;
    std::vector<Node> nodes_; // held, oldest first
    int head_ = -1;
    bool dirty_ = false; // steps or edits since the head
    bool in_stroke_ = false;
    long long next_timed_ = 0; // steps_done at which the next timed snapshot is due
    int branches_ = 0;
    int taken_ = 0, undos_ = 0, redos_ = 0, scrubs_ = 0, dropped_ = 0;
    uint64_t peak_bytes_ = 0;
    nlohmann::json events_ = nlohmann::json::array();
    struct Pending {
        uint64_t submission;
        int stores, restores;
        int id; // the snapshot stored, when one
    };
    std::vector<Pending> pending_;
    double store_ms_ = 0, restore_ms_ = 0;
    int store_timed_ = 0, restore_timed_ = 0;
};

// The budget `view` gives the history: `asked_mb` < 0: automatic (an eighth of the device's memory
// on a CPU driver, a quarter on a GPU, within what one pool may be). Sets `off_reason` and returns
// 0 when the history is off. Throws InputError for an explicit budget below what the grid needs
// or above what the device holds.
uint64_t historyBudget(const gpu::Context& ctx, const gpu::Simulation& sim, const gpu::Brush& brush, double asked_mb,
                       std::string& off_reason);

} // namespace alluvium::viewer
