// The viewer's history: the tree of snapshots, undo, redo and scrubbing (history.h).
// [SECTION] the budget
// [SECTION] the tree: storing, going to a snapshot
// [SECTION] the frame: requests and snapshots due
// [SECTION] completion, the panel's view, the report
#include "history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "io/errors.h"

namespace alluvium::viewer {

struct History::Node {
    int id = -1;
    int parent = -1;     // -1: none held
    int redo_child = -1; // the child on the branch last walked (or stored) down
    bool had_child = false;
    int branch = 1;
    const char* kind = "";
    double time = 0;
    long long steps_done = 0;
    long long steps_before = 0; // a loaded session's (ViewerState)
    double gpu_ms = -1;
    // The viewer's side of the state (the simulation's is in the snapshot).
    Params params;
    int model = MODEL_PIPE;
    std::vector<gpu::Spring> springs;
};

namespace {

std::string megabytes(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / (1024.0 * 1024.0));
    return text;
}

// Simulated time of the viewer's step count: seconds, or years in the fluvial model.
double simulatedTime(const ViewerState& s) {
    return double(s.steps_done) * s.params[s.model == MODEL_FLUVIAL ? Param::fluvial_time_step : Param::time_step];
}

long long intervalSteps(const ViewerState& s) {
    if (s.history.every <= 0) return 0;
    const double dt = s.params[s.model == MODEL_FLUVIAL ? Param::fluvial_time_step : Param::time_step];
    return std::max(1LL, std::llround(double(s.history.every) / dt));
}

bool sameSprings(const std::vector<gpu::Spring>& a, const std::vector<gpu::Spring>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(gpu::Spring)) == 0;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] the budget
// ---------------------------------------------------------------------------------------------

uint64_t historyBudget(const gpu::Context& ctx, const gpu::Simulation& sim, const gpu::Brush& brush, double asked_mb,
                       std::string& off_reason) {
    const std::vector<const gpu::Buffer*> extra = {&brush.totalsBuffer()};
    const uint64_t need = gpu::SnapshotStore::minimumBudget(sim, extra);
    const std::string grid = std::to_string(sim.width()) + "x" + std::to_string(sim.height());
    const uint64_t most = gpu::SnapshotStore::maximumBudget(ctx);
    if (need > most || gpu::SnapshotStore::largestPiece(sim, extra) > gpu::SnapshotStore::bufferLimit(ctx)) {
        off_reason = "off: the history of a " + grid + " grid needs more than " + ctx.device_name + " can bind (" +
                     megabytes(most) + " of snapshots)";
        if (asked_mb > 0) throw InputError("--history-budget-mb: " + off_reason.substr(5));
        return 0;
    }
    if (asked_mb == 0) {
        off_reason = "off (--history-budget-mb 0)";
        return 0;
    }
    if (asked_mb > 0) {
        const auto bytes = static_cast<uint64_t>(asked_mb * 1024.0 * 1024.0);
        if (bytes < need)
            throw InputError("--history-budget-mb: the history of a " + grid + " grid needs at least " +
                             megabytes(need) + " (four whole snapshots)");
        if (bytes > ctx.device_local_bytes)
            throw InputError("--history-budget-mb: " + megabytes(bytes) + " is more than the memory of " +
                             ctx.device_name + " (" + megabytes(ctx.device_local_bytes) + ")");
        return bytes;
    }
    const bool cpu = ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    const uint64_t automatic = std::min(ctx.device_local_bytes / (cpu ? 8 : 4), gpu::SnapshotStore::maximumBudget(ctx));
    if (automatic < need) {
        off_reason = "off: the history of a " + grid + " grid needs " + megabytes(need) +
                     ", more than the automatic budget of " + megabytes(automatic) + " (--history-budget-mb sets it)";
        return 0;
    }
    return automatic;
}

History::History(const gpu::Context& ctx, gpu::Simulation& sim, gpu::Brush& brush, uint64_t budget_bytes,
                 const std::string& off_reason)
    : sim_(sim), off_reason_(off_reason) {
    if (budget_bytes > 0)
        store_ = std::make_unique<gpu::SnapshotStore>(ctx, sim, std::vector<const gpu::Buffer*>{&brush.totalsBuffer()},
                                                      budget_bytes);
}

History::~History() = default;

// ---------------------------------------------------------------------------------------------
// [SECTION] the tree: storing, going to a snapshot
// ---------------------------------------------------------------------------------------------

History::Node* History::node(int id) {
    for (Node& n : nodes_)
        if (n.id == id) return &n;
    return nullptr;
}

bool History::movedOn(const App& app) const {
    if (dirty_ || head_ < 0) return true;
    const ViewerState& s = app.state;
    for (const Node& n : nodes_)
        if (n.id == head_)
            return n.params.values != s.params.values || n.model != s.model || !sameSprings(n.springs, s.springs);
    return true;
}

int History::store(VkCommandBuffer cmd, App& app, const char* kind, uint64_t submission) {
    ViewerState& s = app.state;
    std::vector<int> dropped;
    const int id = store_->recordStore(cmd, node(head_) ? head_ : -1, submission, dropped);
    if (!dropped.empty()) {
        std::string list;
        for (int d : dropped) {
            const Node* n = node(d);
            char one[64];
            std::snprintf(one, sizeof one, "%s#%d (t = %.4g)", list.empty() ? "" : ", ", d, n ? n->time : 0.0);
            list += one;
        }
        for (int d : dropped) {
            nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(), [&](const Node& n) { return n.id == d; }),
                         nodes_.end());
            for (Node& n : nodes_) {
                if (n.parent == d) n.parent = -1;
                if (n.redo_child == d) n.redo_child = -1;
            }
            if (head_ == d) head_ = -1; // the state no longer descends from a snapshot held
        }
        dropped_ += int(dropped.size());
        s.history.message = "history: the budget of " + megabytes(store_->budget()) +
                            " is full: dropped the oldest snapshot" + (dropped.size() > 1 ? "s " : " ") + list;
        std::fprintf(stderr, "alluvium: %s\n", s.history.message.c_str());
    }
    if (id < 0) {
        s.history.message = "history: no room for a snapshot now (the work in flight holds the budget)";
        std::fprintf(stderr, "alluvium: %s\n", s.history.message.c_str());
        return -1;
    }
    Node n;
    n.id = id;
    n.kind = kind;
    n.time = simulatedTime(s);
    n.steps_done = s.steps_done;
    n.steps_before = s.steps_before;
    n.params = s.params;
    n.model = s.model;
    n.springs = sim_.springs(); // what the snapshot holds (the viewer's list may be ahead by this frame's edit)
    if (Node* parent = node(head_)) {
        n.parent = parent->id;
        n.branch = parent->had_child ? ++branches_ : parent->branch;
        parent->had_child = true;
        parent->redo_child = id;
    } else {
        n.branch = ++branches_;
    }
    nodes_.push_back(std::move(n));
    head_ = id;
    dirty_ = false;
    ++taken_;
    if (pending_.empty() || pending_.back().submission != submission) pending_.push_back({submission, 0, 0, -1});
    ++pending_.back().stores;
    pending_.back().id = id;
    return id;
}

bool History::goTo(VkCommandBuffer cmd, App& app, int target, const char* action, uint64_t submission) {
    ViewerState& s = app.state;
    if (!node(target)) return false;
    int from = head_, tip = -1;
    if (movedOn(app)) { // keep the state now
        tip = store(cmd, app, "tip", submission);
        if (tip < 0) {
            s.history.message = std::string("history: ") + action + " refused: no room to keep the state now";
            return false;
        }
        from = tip;
    }
    Node* t = node(target);
    if (!t) {
        s.history.message = "history: snapshot #" + std::to_string(target) + " was dropped to make room";
        return false;
    }
    store_->recordRestore(cmd, target, submission);
    // Redo follows the way back down: from the state left (if it descends from the target), and
    // towards the target from its root.
    auto link = [&](int from_id, int stop) {
        for (int c = from_id; c >= 0 && c != stop;) {
            Node* n = node(c);
            Node* p = n ? node(n->parent) : nullptr;
            if (!p) break;
            p->redo_child = c;
            c = p->id;
        }
    };
    bool descends = false;
    for (const Node* n = node(from); n; n = node(n->parent))
        if (n->id == target) descends = true;
    if (descends) link(from, target);
    link(target, -1);

    s.params = t->params;
    s.model = t->model;
    s.springs = t->springs;
    s.springs_dirty = false; // the restore set the simulation's
    s.params_dirty = false;
    s.steps_done = t->steps_done;
    s.steps_before = t->steps_before;
    s.watchdog.clear();
    app.hand_picking = false;
    head_ = target;
    dirty_ = false;
    in_stroke_ = false;
    next_timed_ = s.steps_done + intervalSteps(s);
    nlohmann::json event = {{"frame", submission}, {"action", action}, {"from", from}, {"to", target}};
    if (tip >= 0) event["tip"] = tip;
    events_.push_back(event);
    if (pending_.empty() || pending_.back().submission != submission) pending_.push_back({submission, 0, 0, -1});
    ++pending_.back().restores;
    s.history.message = std::string(action) + " to snapshot #" + std::to_string(target) + " (" + t->kind + ")";
    return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] the frame: requests and snapshots due
// ---------------------------------------------------------------------------------------------

bool History::beginFrame(VkCommandBuffer cmd, App& app, int steps, bool edits, uint64_t submission) {
    ViewerState& s = app.state;
    HistoryControl& h = s.history;
    const int taken_before = taken_;
    bool restored = false;
    if (store_) {
        // A stroke that ended last frame is stored first: an undo in this frame goes back from
        // its end, not from the state before it.
        if (in_stroke_ && !edits && !app.left_was_down) {
            store(cmd, app, "stroke end", submission);
            in_stroke_ = false;
        }
        const bool moved = movedOn(app);
        const Node* head = node(head_);
        auto parentOf = [&](int id) {
            const Node* n = node(id);
            return n ? n->parent : -1;
        };
        auto childOf = [&](int id) {
            const Node* n = node(id);
            return n ? n->redo_child : -1;
        };
        int target = -1;
        const char* action = nullptr;
        if (h.undo) {
            action = "undo";
            for (int c = moved ? head_ : parentOf(head_); node(c); c = parentOf(c))
                if (std::strcmp(node(c)->kind, "stroke") == 0) {
                    target = c;
                    break;
                }
            if (target < 0) h.message = "nothing to undo";
        } else if (h.redo) {
            action = "redo";
            for (int c = childOf(head_); node(c); c = childOf(c))
                if (std::strcmp(node(c)->kind, "stroke end") == 0 || childOf(c) < 0) {
                    target = c;
                    break;
                }
            if (target < 0) h.message = "nothing to redo";
        } else if (h.go_to >= 0 || h.step != 0 || h.first || h.last) {
            action = "scrub";
            if (h.go_to >= 0)
                target = h.go_to;
            else if (h.step < 0)
                target = moved ? head_ : parentOf(head_);
            else if (h.step > 0)
                target = moved ? -1 : childOf(head_);
            else if (h.first) {
                for (int c = head_; c >= 0; c = parentOf(c)) target = c;
            } else if (!moved) {
                for (int c = head_; c >= 0; c = childOf(c)) target = c;
            }
            if (target < 0 && head) h.message = "no snapshot there";
        }
        if (target >= 0 && (target != head_ || moved) && goTo(cmd, app, target, action, submission)) {
            restored = true;
            if (std::strcmp(action, "undo") == 0)
                ++undos_;
            else if (std::strcmp(action, "redo") == 0)
                ++redos_;
            else
                ++scrubs_;
        }
        if (action) logAction(s, restored ? h.message : std::string(action) + ": nothing there");

        // Snapshots due: before a stroke's first change (its end: above), every N seconds.
        if (edits && !in_stroke_ && store(cmd, app, "stroke", submission) >= 0) in_stroke_ = true;
        const long long interval = intervalSteps(s);
        if (interval > 0 && !h.scrubbing && s.steps_done >= next_timed_) {
            if (taken_ == taken_before && movedOn(app)) store(cmd, app, "timed", submission);
            next_timed_ = s.steps_done + interval;
        }
        dirty_ = dirty_ || steps > 0 || edits;
    }
    h.undo = h.redo = h.first = h.last = false;
    h.step = 0;
    h.go_to = -1;
    publish(app);
    return restored || taken_ != taken_before;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] completion, the panel's view, the report
// ---------------------------------------------------------------------------------------------

void History::collect(uint64_t submission, double gpu_ms) {
    if (!store_) return;
    store_->completed(submission);
    for (const Pending& p : pending_) {
        if (p.submission != submission) continue;
        if (p.stores == 1 && p.restores == 0) {
            store_ms_ += gpu_ms;
            ++store_timed_;
            if (Node* n = node(p.id)) n->gpu_ms = gpu_ms;
        } else if (p.restores == 1 && p.stores == 0) {
            restore_ms_ += gpu_ms;
            ++restore_timed_;
        }
    }
    pending_.erase(
        std::remove_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.submission <= submission; }),
        pending_.end());
    peak_bytes_ = std::max(peak_bytes_, store_->bytesHeld());
}

std::vector<int> History::timeline() const {
    std::vector<int> line;
    auto find = [&](int id) -> const Node* {
        for (const Node& n : nodes_)
            if (n.id == id) return &n;
        return nullptr;
    };
    for (const Node* n = find(head_); n; n = find(n->parent)) line.insert(line.begin(), n->id);
    const Node* n = find(head_);
    for (n = n ? find(n->redo_child) : nullptr; n; n = find(n->redo_child)) line.push_back(n->id);
    return line;
}

void History::publish(App& app) {
    HistoryControl& h = app.state.history;
    h.enabled = store_ != nullptr;
    h.off_reason = off_reason_;
    h.entries.clear();
    for (const Node& n : nodes_) {
        const int64_t fresh = store_ ? store_->newBytes(n.id) : -1;
        h.entries.push_back({n.id, n.parent, n.branch, n.kind, n.time, n.steps_done, fresh});
    }
    h.timeline = timeline();
    h.head = node(head_) ? head_ : -1;
    h.moved_on = store_ && movedOn(app);
    h.budget = store_ ? store_->budget() : 0;
    h.held = store_ ? store_->bytesHeld() : 0;
    h.taken = taken_, h.undos = undos_, h.redos = redos_, h.scrubs = scrubs_, h.dropped = dropped_;
}

std::string History::summary() {
    store_->completed(UINT64_MAX);
    double fresh = 0;
    int known = 0;
    for (const Node& n : nodes_)
        if (store_->newBytes(n.id) >= 0) fresh += double(store_->newBytes(n.id)), ++known;
    char line[256];
    std::snprintf(
        line, sizeof line,
        "%d snapshots taken (%d dropped), GPU %.2f ms per snapshot, %.2f MB new per snapshot of %.2f MB whole, "
        "%.1f of %.1f MB held",
        taken_, dropped_, store_timed_ ? store_ms_ / store_timed_ : 0.0, known ? fresh / known / 1048576.0 : 0.0,
        double(store_->blocksPerSnapshot() * (SNAPSHOT_BLOCK_WORDS * 4 + 4)) / 1048576.0,
        double(store_->bytesHeld()) / 1048576.0, double(store_->budget()) / 1048576.0);
    return line;
}

nlohmann::json History::report() {
    nlohmann::json r;
    r["enabled"] = store_ != nullptr;
    if (!store_) {
        r["off"] = off_reason_;
        return r;
    }
    store_->completed(UINT64_MAX); // the device is idle
    peak_bytes_ = std::max(peak_bytes_, store_->bytesHeld());
    std::vector<int> ids;
    for (const Node& n : nodes_) ids.push_back(n.id);
    const std::vector<uint64_t> digests = store_->digests(ids);
    r["budget_bytes"] = store_->budget();
    r["allocated_bytes"] = store_->allocatedBytes();
    r["bytes_held"] = store_->bytesHeld();
    r["bytes_held_peak"] = peak_bytes_;
    r["full_snapshot_bytes"] = store_->blocksPerSnapshot() * (SNAPSHOT_BLOCK_WORDS * 4 + 4);
    r["snapshots_taken"] = taken_;
    r["snapshots_dropped"] = dropped_;
    r["undos"] = undos_;
    r["redos"] = redos_;
    r["scrubs"] = scrubs_;
    r["head"] = node(head_) ? nlohmann::json(head_) : nlohmann::json(nullptr);
    r["moved_on"] = dirty_ || !node(head_);
    r["store_gpu_ms_mean"] = store_timed_ ? store_ms_ / store_timed_ : 0.0;
    r["restore_gpu_ms_mean"] = restore_timed_ ? restore_ms_ / restore_timed_ : 0.0;
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const Node& n = nodes_[i];
        list.push_back({{"id", n.id},
                        {"parent", n.parent >= 0 ? nlohmann::json(n.parent) : nlohmann::json(nullptr)},
                        {"branch", n.branch},
                        {"kind", n.kind},
                        {"time", n.time},
                        {"steps", n.steps_done},
                        {"new_bytes", store_->newBytes(n.id)},
                        {"gpu_ms", n.gpu_ms},
                        {"digest", gpu::digestText(digests[i])}});
    }
    r["snapshots"] = list;
    r["events"] = events_;
    return r;
}

} // namespace alluvium::viewer
