// Every file reader against mutated files, as a hostile tester would feed them (hostile_files.h):
// heightmaps of every format (PNG with its chunk CRCs fixed after the mutation half of the time,
// raw float32 and 16-bit, EXR plain and ZIP-compressed, TIFF float strips, deflate-compressed
// 16-bit strips and LZW tiles, ASCII grids), their JSON sidecars, sessions (checksum fixed half
// of the time, so the header's lies reach the reader) and presets. Each mutated file must load
// into a consistent, finite heightmap or be refused with one line (InputError; ParamError for a
// preset's value): no other exception, no crash, no hang. A fixed seed; ALLUVIUM_HOSTILE_ROUNDS
// sets the number of mutations per seed file (default 150). The cases that found something are
// kept as their own tests at the end.
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include <tiffio.h>

#include "hostile_files.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/formats.h"
#include "io/heightmap.h"
#include "params.h"
#include "presets.h"
#include "session.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

namespace fs = std::filesystem;
using hostile::Bytes;

int rounds() {
    const char* env = std::getenv("ALLUVIUM_HOSTILE_ROUNDS");
    return env && std::atoi(env) > 0 ? std::atoi(env) : 150;
}

Heightmap sampleMap() {
    Heightmap m;
    m.width = 13;
    m.height = 9;
    for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < m.width; ++x)
            m.heights.push_back(float(100.0 + 30.0 * std::sin(x * 0.7) * std::cos(y * 0.5) + x));
    return m;
}

// A TIFF of the sample map written by libtiff: 16-bit deflate strips, or float LZW tiles.
void writeTiff(const fs::path& path, const Heightmap& m, bool tiled) {
    TIFF* t = TIFFOpen(path.c_str(), "w");
    ASSERT_NE(t, nullptr);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, uint32_t(m.width));
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, uint32_t(m.height));
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (tiled) {
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        std::vector<float> tile(256, 0.0f);
        for (int y = 0; y < m.height; ++y)
            for (int x = 0; x < m.width; ++x) tile[size_t(y * 16 + x)] = m.at(x, y);
        ASSERT_GE(TIFFWriteEncodedTile(t, 0, tile.data(), tmsize_t(tile.size() * 4)), 0);
    } else {
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
        for (int y = 0; y < m.height; ++y) {
            std::vector<uint16_t> row(size_t(m.width));
            for (int x = 0; x < m.width; ++x) row[size_t(x)] = uint16_t(m.at(x, y) * 100.0f);
            ASSERT_EQ(TIFFWriteScanline(t, row.data(), uint32_t(y), 0), 1);
        }
    }
    TIFFClose(t);
}

struct SeedFile {
    std::string name;
    fs::path path;
    LoadOptions options;
    bool png = false;
};

// One of every format the loader reads, written into dir.
std::vector<SeedFile> seedFiles(const fs::path& dir) {
    const Heightmap m = sampleMap();
    std::vector<SeedFile> seeds;
    auto add = [&](const std::string& name, bool raw = false, bool png = false) {
        SeedFile s{name, dir / name, {}, png};
        if (raw) s.options.width = m.width, s.options.height = m.height;
        seeds.push_back(s);
    };
    saveHeightmap(dir / "map.png", m, 4.0);
    add("map.png", false, true);
    saveHeightmap(dir / "map.f32", m, 4.0);
    add("map.f32", true);
    saveHeightmap(dir / "map.r16", m, 4.0);
    add("map.r16", true);
    saveHeightmap(dir / "map.exr", m, 4.0);
    add("map.exr");
    const std::vector<std::byte> zip =
        detail::encodeExrChannels(m.width, m.height, {{"Y", m.heights.data(), 1}}, true, dir / "zip.exr");
    writeBytes(dir / "zip.exr", Bytes(reinterpret_cast<const unsigned char*>(zip.data()),
                                      reinterpret_cast<const unsigned char*>(zip.data()) + zip.size()));
    add("zip.exr");
    saveHeightmap(dir / "map.tif", m, 4.0);
    add("map.tif");
    writeTiff(dir / "deflate.tif", m, false);
    add("deflate.tif");
    writeTiff(dir / "tiled.tif", m, true);
    add("tiled.tif");
    saveHeightmap(dir / "map.asc", m, 4.0);
    add("map.asc");
    return seeds;
}

// Runs `load` on a mutated file; returns "" if it loaded a consistent map or refused with one
// line, else what went wrong.
std::string judgeLoad(const std::function<Heightmap()>& load) {
    try {
        const Heightmap m = load();
        if (m.width < 1 || m.height < 1 || m.heights.size() != size_t(m.width) * size_t(m.height))
            return "loaded an inconsistent map " + std::to_string(m.width) + "x" + std::to_string(m.height);
        for (float v : m.heights)
            if (!std::isfinite(v)) return "loaded a non-finite height";
        return "";
    } catch (const InputError& e) {
        const std::string what = e.what();
        return what.find('\n') == std::string::npos && !what.empty() ? "" : "InputError of more than one line: " + what;
    } catch (const std::exception& e) {
        return std::string("escaped as another exception: ") + e.what();
    } catch (...) {
        return "escaped as a non-standard exception";
    }
}

TEST(HostileFiles, MutatedHeightmapsLoadOrFailWithOneLine) {
    const fs::path dir = scratchDir("hostile");
    const std::vector<SeedFile> seeds = seedFiles(dir);
    std::mt19937_64 rng(7001);
    int refused = 0, loaded = 0;
    for (const SeedFile& seed : seeds) {
        const Bytes original = readBytes(seed.path);
        ASSERT_EQ(judgeLoad([&] { return loadHeightmap(seed.path, seed.options); }), "") << seed.name;
        const fs::path victim = dir / ("mutated-" + seed.name);
        if (fs::exists(seed.path.string() + ".json"))
            fs::copy_file(seed.path.string() + ".json", victim.string() + ".json");
        for (int k = 0; k < rounds(); ++k) {
            Bytes bytes = hostile::mutate(original, rng);
            if (seed.png && k % 2 == 0) hostile::fixPngCrcs(bytes);
            writeBytes(victim, bytes);
            const std::string problem = judgeLoad([&] { return loadHeightmap(victim, seed.options); });
            ASSERT_EQ(problem, "") << seed.name << ", mutation " << k << " (kept in " << victim << ")";
            try {
                loadHeightmap(victim, seed.options);
                ++loaded;
            } catch (const InputError&) {
                ++refused;
            }
        }
    }
    std::printf("[ heightmaps ] %zu formats x %d mutations: %d refused with one line, %d loaded\n", seeds.size(),
                rounds(), refused, loaded);
}

TEST(HostileFiles, MutatedSidecarsLoadOrFailWithOneLine) {
    const fs::path dir = scratchDir("hostile");
    const Heightmap m = sampleMap();
    std::mt19937_64 rng(7002);
    for (const char* name : {"map.png", "map.r16"}) {
        saveHeightmap(dir / name, m, 4.0);
        const fs::path side = dir / (std::string(name) + ".json");
        const Bytes original = readBytes(side);
        LoadOptions opt;
        if (std::string(name) == "map.r16") opt.width = m.width, opt.height = m.height;
        for (int k = 0; k < rounds(); ++k) {
            writeBytes(side, hostile::mutate(original, rng));
            ASSERT_EQ(judgeLoad([&] { return loadHeightmap(dir / name, opt); }), "")
                << name << " sidecar, mutation " << k;
        }
    }
}

// A small session as `run --save-session` writes it.
Session sampleSession() {
    Session s;
    s.model = "pipe";
    s.width = 7;
    s.height = 5;
    s.steps = 12;
    const size_t cells = 35;
    s.initial_terrain.assign(cells, 100.0f);
    for (gpu::Field f : sessionFields())
        s.fields.emplace_back(f, std::vector<float>(cells * size_t(gpu::fieldChannels(f)), 0.5f));
    s.springs.push_back({3.0f, 2.0f, 1.5f, 0.01f});
    s.initial_sums.water = 1.0;
    s.initial_sums.terrain = 3500.0;
    return s;
}

TEST(HostileFiles, MutatedSessionsLoadOrFailWithOneLine) {
    const std::vector<std::byte> encoded = encodeSession(sampleSession());
    const Bytes original(reinterpret_cast<const unsigned char*>(encoded.data()),
                         reinterpret_cast<const unsigned char*>(encoded.data()) + encoded.size());
    std::mt19937_64 rng(7003);
    int refused = 0, loaded = 0;
    for (int k = 0; k < 4 * rounds(); ++k) {
        Bytes bytes = hostile::mutate(original, rng);
        if (k % 2 == 0) hostile::fixSessionChecksum(bytes);
        try {
            const Session s = decodeSession(std::as_bytes(std::span<const unsigned char>(bytes)), "mutated.session");
            ++loaded;
            ASSERT_EQ(s.initial_terrain.size(), size_t(s.width) * size_t(s.height)) << "mutation " << k;
            for (const auto& [field, values] : s.fields) {
                ASSERT_EQ(values.size(), size_t(s.width) * size_t(s.height) * size_t(gpu::fieldChannels(field)));
                for (float v : values) ASSERT_TRUE(std::isfinite(v)) << "a non-finite value loaded, mutation " << k;
            }
            for (float v : s.initial_terrain)
                ASSERT_TRUE(std::isfinite(v)) << "a non-finite value loaded, mutation " << k;
        } catch (const InputError& e) {
            ++refused;
            ASSERT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        } catch (const std::exception& e) {
            FAIL() << "mutation " << k << " escaped as another exception: " << e.what();
        }
    }
    std::printf("[ sessions ] %d mutations: %d refused with one line, %d loaded\n", 4 * rounds(), refused, loaded);
}

TEST(HostileFiles, MutatedPresetsApplyOrFailWithOneLine) {
    const fs::path dir = scratchDir("hostile");
    const Bytes original = readBytes(assetDirectory() / "presets" / "flash-flood.json");
    ASSERT_FALSE(original.empty());
    std::mt19937_64 rng(7004);
    for (int k = 0; k < rounds(); ++k) {
        writeBytes(dir / "mutated.json", hostile::mutate(original, rng));
        Params params;
        try {
            applyPreset(params, (dir / "mutated.json").string());
        } catch (const InputError& e) {
            ASSERT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        } catch (const ParamError& e) {
            ASSERT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        } catch (const std::exception& e) {
            FAIL() << "mutation " << k << " escaped as another exception: " << e.what();
        }
        for (int i = 0; i < kParamCount; ++i) {
            const ParamInfo& info = paramTable()[size_t(i)];
            ASSERT_TRUE(params.values[size_t(i)] >= info.min && params.values[size_t(i)] <= info.max) << info.name;
        }
    }
}

// [SECTION] the cases that found something, kept -------------------------------------------

// The largest resident memory of this process so far (MiB). ctest runs every test in its own
// process, so a rise during a test is that test's.
double maxResidentMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

// A file a few kilobytes long whose header claims 16384 x 16384 cells (the largest grid) made the
// PNG reader take 512 MiB and the TIFF reader 1 GiB before they found the data missing. Now the
// PNG's claim is checked against the most its bytes can hold (zlib packs at most 1032 to 1) and
// the TIFF map grows as rows are decoded: refused with one line, without the memory.
TEST(HostileFiles, HeadersThatLieAboutTheSizeAreRefusedWithoutTheMemory) {
    const fs::path dir = scratchDir("hostile");
    const Heightmap m = sampleMap();
    saveHeightmap(dir / "lie.png", m, 4.0);
    Bytes png = readBytes(dir / "lie.png");
    hostile::writeBE32(png, 16, 16384); // IHDR width and height
    hostile::writeBE32(png, 20, 16384);
    hostile::fixPngCrcs(png);
    writeBytes(dir / "lie.png", png);
    saveHeightmap(dir / "lie.tif", m, 4.0);
    Bytes tif = readBytes(dir / "lie.tif");
    ASSERT_EQ(tif[0], 'I') << "expected a little-endian TIFF";
    const uint32_t ifd = uint32_t(tif[4]) | uint32_t(tif[5]) << 8 | uint32_t(tif[6]) << 16 | uint32_t(tif[7]) << 24;
    const unsigned entries = unsigned(tif[ifd]) | unsigned(tif[ifd + 1]) << 8;
    int patched = 0;
    for (unsigned e = 0; e < entries; ++e) {
        const size_t at = ifd + 2 + 12 * e;
        const unsigned tag = unsigned(tif[at]) | unsigned(tif[at + 1]) << 8, type = unsigned(tif[at + 2]);
        if (tag != TIFFTAG_IMAGEWIDTH && tag != TIFFTAG_IMAGELENGTH) continue;
        tif[at + 8] = 0x00, tif[at + 9] = 0x40; // 16384, as a SHORT or the low half of a LONG
        if (type == TIFF_LONG) tif[at + 10] = tif[at + 11] = 0;
        ++patched;
    }
    ASSERT_EQ(patched, 2);
    writeBytes(dir / "lie.tif", tif);
    const double before = maxResidentMiB();
    expectInputError([&] { loadHeightmap(dir / "lie.png", {}); }, {"lie.png", "16384x16384", "lies"});
    expectInputError([&] { loadHeightmap(dir / "lie.tif", {}); }, {"lie.tif", "not a valid TIFF"});
    EXPECT_LT(maxResidentMiB() - before, 64.0) << "memory taken for the size the headers claim";
}

// A session whose checksum is right but whose contents lie (a hand-made or doctored file): a NaN
// in a field loaded and ran into a NaN terrain; a step count of 9.2e18 overflowed the report's
// steps (-805) and the GPU's step index; springs 1e30 cells off the grid with a rate of 1e30
// filled the water with 1e35 m^3. All refused with one line now.
TEST(HostileFiles, SessionsThatLieBehindAValidChecksumAreRefused) {
    auto encoded = [](const Session& s) {
        const std::vector<std::byte> e = encodeSession(s);
        return std::vector<std::byte>(e.begin(), e.end());
    };
    Session nan = sampleSession();
    nan.fields[2].second[17] = std::nanf("");
    expectInputError([&] { decodeSession(encoded(nan), "nan.session"); }, {"nan.session", "non-finite", "(3, 2)"});
    Session steps = sampleSession();
    steps.steps = 9223372036854775000LL;
    expectInputError([&] { decodeSession(encoded(steps), "steps.session"); }, {"step count", "out of range"});
    Session springs = sampleSession();
    springs.springs.push_back({1e30f, -5.0f, 1e30f, 1e30f});
    expectInputError([&] { decodeSession(encoded(springs), "springs.session"); }, {"spring 1", "off the grid"});
    EXPECT_NO_THROW(decodeSession(encoded(sampleSession()), "good.session"));
}

// Runs `body` in a child process and returns its exit status (the child's own failures are its
// exit status: 0 is success). For what must not touch this process: giving up root.
int inChild(const std::function<int()>& body) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) _exit(body());
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Whether `fn` throws an InputError of one line that contains `needle`.
bool refusedWith(const std::function<void()>& fn, const std::string& needle) {
    try {
        fn();
    } catch (const InputError& e) {
        const std::string what = e.what();
        return what.find('\n') == std::string::npos && what.find(needle) != std::string::npos;
    } catch (...) {
    }
    return false;
}

// Runs the alluvium executable through `sh -c` with `prefix` in front (ulimit, setpriv); returns
// the exit status and the captured stderr.
std::pair<int, std::string> runAlluvium(const std::string& prefix, const std::string& args, const fs::path& dir) {
    const fs::path err = dir / "stderr.txt";
    const std::string cmd = prefix + " '" + std::string(ALLUVIUM_EXE) + "' " + args + " 2>'" + err.string() + "'";
    const int status = std::system(("sh -c \"" + cmd + "\"").c_str());
    const Bytes text = readBytes(err);
    fs::remove(err);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::string(text.begin(), text.end())};
}

// Output to a full disk: a file-size limit (ulimit -f, SIGXFSZ ignored) makes the write fail
// part way, as ENOSPC would. `convert` into every format fails with exit 2 and one line, leaves no
// partial or temporary file, and an older file of the same name stays whole. (Through the
// executable: OpenEXR's thread pool does not survive a fork.)
TEST(HostileFiles, AWriteThatFillsTheDiskLeavesNoPartialFile) {
    const fs::path dir = scratchDir("hostile");
    const fs::path out = dir / "out";
    fs::create_directories(out);
    Heightmap big;
    big.width = big.height = 64;
    std::mt19937 noise(5);
    for (int i = 0; i < 64 * 64; ++i)
        big.heights.push_back(float(noise() % 100000) * 0.01f); // no PNG packs it into 4 KiB
    saveHeightmap(dir / "in.f32", big, 4.0);
    const std::string old = "the previous heightmap";
    writeBytes(out / "keep.f32", Bytes(old.begin(), old.end()));
    for (const char* name :
         {"keep.f32", "fresh.f32", "fresh.png", "fresh.r16", "fresh.exr", "fresh.tif", "fresh.asc"}) {
        const auto [status, err] = runAlluvium(
            "trap '' XFSZ; ulimit -f 4;",
            "convert --in '" + (dir / "in.f32").string() + "' --size 64x64 --out '" + (out / name).string() + "'", dir);
        EXPECT_EQ(status, 2) << name << ": " << err;
        EXPECT_NE(err.find("cannot write"), std::string::npos) << name << ": " << err;
        EXPECT_EQ(err.find('\n'), err.size() - 1) << name << ": not one line: " << err;
    }
    EXPECT_EQ(listDir(out), std::vector<std::string>{"keep.f32"}) << "a partial or temporary file was left";
    const Bytes kept = readBytes(out / "keep.f32");
    EXPECT_EQ(std::string(kept.begin(), kept.end()), old);
}

// `run` onto a full disk fails with exit 2 and one line, and writes nothing (the heightmap, the largest file, goes
// first; the report only after it).
TEST(HostileFiles, ARunOntoAFullDiskWritesNothing) {
    const fs::path dir = scratchDir("hostile");
    const auto [status, err] = runAlluvium("trap '' XFSZ; ulimit -f 8; MESA_SHADER_CACHE_DISABLE=1",
                                           "run --size 65x65 --steps 2 --out '" + (dir / "out.f32").string() +
                                               "' --report '" + (dir / "report.json").string() + "'",
                                           dir);
    EXPECT_EQ(status, 2) << err;
    EXPECT_NE(err.find("cannot write"), std::string::npos) << err;
    EXPECT_EQ(err.find("terminate"), std::string::npos) << err;
    EXPECT_EQ(listDir(dir), std::vector<std::string>{}) << "something was written";
}

// A read-only folder: found before the work starts (the probe of checkWritableLocation), for the
// library's save and for `run`, which fails with exit 2 and one line before the GPU runs. Root
// writes anywhere, so as root the child gives up its privileges first (user nobody).
TEST(HostileFiles, AReadOnlyFolderIsRefusedBeforeTheWork) {
    const fs::path dir = scratchDir("hostile");
    const fs::path ro = dir / "read-only";
    fs::create_directories(ro);
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                             fs::perms::others_exec);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
    const bool root = geteuid() == 0;
    const int status = inChild([&] {
        if (root && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) return 3;
        Heightmap m = sampleMap();
        const bool probe = refusedWith([&] { checkWritableLocation(ro / "x.f32", "--out"); }, "cannot write in");
        const bool save = refusedWith([&] { saveHeightmap(ro / "x.f32", m, 4.0); }, "Permission denied");
        return probe && save ? 0 : 1;
    });
    EXPECT_EQ(status, 0) << "the read-only folder was not refused with one line";
    const auto [code, err] = runAlluvium(root ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "",
                                         "run --size 33x33 --steps 2 --out '" + (ro / "x.f32").string() + "'", dir);
    EXPECT_EQ(code, 2) << err;
    EXPECT_NE(err.find("cannot write in"), std::string::npos) << err;
    EXPECT_EQ(err.find("cells of"), std::string::npos) << "the run started before the folder was checked: " << err;
    EXPECT_TRUE(fs::is_empty(ro));
    fs::permissions(ro, fs::perms::owner_all);
}

} // namespace
} // namespace alluvium::test
