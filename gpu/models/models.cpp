// The model table: every model's row, in MODEL_* order (shared.h), and what reads it.
#include <stdexcept>

#include "model.h"

namespace alluvium::gpu {

// Each model's row, defined in its own file.
const Model& pipeModel();
const Model& thermalModel();
const Model& olsenModel();
const Model& particlesModel();
const Model& musgraveModel();
const Model& simpleModel();
const Model& fluvialModel();

const std::vector<const Model*>& models() {
    static const std::vector<const Model*> table = [] {
        const std::vector<const Model*> rows = {&pipeModel(),     &thermalModel(), &olsenModel(),  &particlesModel(),
                                                &musgraveModel(), &simpleModel(),  &fluvialModel()};
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i]->id != int(i)) throw std::logic_error("the model table is not in MODEL_* order");
        return rows;
    }();
    return table;
}

const Model& model(int id) {
    const std::vector<const Model*>& table = models();
    return *table.at(id >= 0 && size_t(id) < table.size() ? size_t(id) : size_t(MODEL_PIPE));
}

const Model* findModel(const std::string& name) {
    for (const Model* m : models())
        if (name == m->name) return m;
    return nullptr;
}

const char* modelName(int id) { return model(id).name; }

int modelFromName(const std::string& name) {
    const Model* m = findModel(name);
    return m ? m->id : -1;
}

std::string modelList(const char* separator) {
    std::string list;
    for (const Model* m : models()) list += (list.empty() ? "" : separator) + std::string(m->name);
    return list;
}

int writtenPingPong(const Model& m) {
    int bits = 0;
    for (Field f : m.writes) bits |= 1 << fieldPingPongBit(f);
    return bits;
}

const std::vector<Pass>& modelPasses(int id, PipePasses pipe) {
    const Model& m = model(id);
    return pipe == PipePasses::Direct && !m.timed_direct.empty() ? m.timed_direct : m.timed;
}

} // namespace alluvium::gpu
