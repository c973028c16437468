// Inputs that must be refused, each kind with many variants, through the executable: files whose
// headers claim far more than they hold (refused without the memory), heights that are finite but
// absurd, TIFFs whose strip or tile tables disagree with their size, empty and overflowing option
// values (every option of every command), and paths that are not regular files (folders, FIFOs,
// devices, sockets). Every refusal is exit 2 and one line, within 512 MiB and 10 s
// (isOneLineError), and leaves nothing new on disk.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cfloat>
#include <cstring>
#include <regex>

#include <tiffio.h>

#include "cli_process.h"
#include "hostile_files.h"

namespace {

using Bytes = std::vector<unsigned char>;
using alluvium::test::readBytes;
using alluvium::test::writeBytes;

// Runs `args` (an input already named in them) into a fresh out/ folder with --out and, for the
// commands that take them, --report: exit 2, one line naming every needle, out/ left empty.
void expectRefused(const Scratch& s, std::vector<std::string> args, const std::vector<std::string>& needles) {
    fs::remove_all(s.out);
    fs::create_directories(s.out);
    const std::string command = args[0];
    auto add = [&](const std::string& option, const std::string& value) { // unless the test gives it
        if (std::find(args.begin(), args.end(), option) == args.end()) args.insert(args.end(), {option, value});
    };
    if (command != "view") add("--out", s.outPath("out.f32"));
    if (command == "run" || command == "fill" || command == "watertable") add("--report", s.outPath("report.json"));
    if (command == "run") add("--steps", "2");
    if (command == "view") {
        args.push_back("--offscreen");
        add("--exit-after-frames", "1");
        add("--screenshot", s.outPath("shot.png"));
    }
    const CliResult r = runCli(args, s.io);
    EXPECT_TRUE(isOneLineError(r, 2, needles));
    EXPECT_TRUE(holdsExactly(s.out, {}));
}

// A 16-bit greyscale PNG of 13 x 9 cells as the writer makes it.
Bytes validPng(const Scratch& s) {
    saveHeightmap(s.in / "valid.png", smallTerrain(13, 9), 4.0);
    fs::remove(s.in / "valid.png.json");
    return readBytes(s.in / "valid.png");
}

// The PNG's signature and IHDR, then one chunk of `type` whose header claims `length` bytes
// followed by a few real ones, and nothing after: a reader that believes the length allocates it.
Bytes pngWithClaim(const Bytes& valid, const char* type, uint32_t length) {
    const size_t at = 8 + 25; // past the signature and IHDR (4 + 4 + 13 + 4)
    Bytes b(at + 8 + 64, 'x');
    std::copy_n(valid.begin(), at, b.begin());
    alluvium::test::hostile::writeBE32(b, at, length);
    std::memcpy(b.data() + at + 4, type, 4);
    return b;
}

} // namespace

// [SECTION] claims of more than the file holds --------------------------------------------------

TEST(Refusals, PngChunksThatClaimGigabytesCostNoMemory) {
    Scratch s;
    const Bytes valid = validPng(s);
    for (const char* type : {"tEXt", "zTXt", "iTXt", "iCCP", "sPLT", "alLu", "IDAT"})
        for (uint32_t length : {0x7FFFFFF0u, 0x40000000u, 0x10000000u}) {
            SCOPED_TRACE(std::string(type) + " claiming " + std::to_string(length) + " bytes");
            writeBytes(s.in / "claim.png", pngWithClaim(valid, type, length));
            expectRefused(s, {"convert", "--in", s.inPath("claim.png")}, {"claim.png"});
        }
    writeBytes(s.in / "claim.png", pngWithClaim(valid, "tEXt", 0x7FFFFFF0u));
    for (const char* command : {"run", "fill", "watertable"}) {
        SCOPED_TRACE(command);
        expectRefused(s, {command, "--in", s.inPath("claim.png")}, {"claim.png"});
    }
}

TEST(Refusals, HeadersOfEveryFormatThatClaimTheLargestGridCostNoMemory) {
    Scratch s;
    // An ASCII grid and raw files of a few bytes that claim 16384 x 16384 cells.
    writeFile(s.in / "big.asc", "ncols 16384\nnrows 16384\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3 4\n");
    writeFile(s.in / "big.f32", std::string(64, '\0'));
    writeFile(s.in / "big.r16", std::string(64, '\0'));
    expectRefused(s, {"convert", "--in", s.inPath("big.asc")}, {"big.asc"});
    expectRefused(s, {"convert", "--in", s.inPath("big.f32"), "--size", "16384x16384"}, {"big.f32"});
    expectRefused(s, {"convert", "--in", s.inPath("big.r16"), "--size", "16384x16384"}, {"big.r16"});
    // An EXR whose data window claims 16384 x 16384.
    saveHeightmap(s.in / "big.exr", smallTerrain(13, 9), 4.0);
    Bytes exr = readBytes(s.in / "big.exr");
    const std::string key = std::string("dataWindow\0box2i\0", 17);
    const auto at = std::search(exr.begin(), exr.end(), key.begin(), key.end());
    ASSERT_NE(at, exr.end());
    const size_t box = size_t(at - exr.begin()) + key.size() + 4; // past the attribute's size
    for (size_t k : {box + 8, box + 12}) {                        // xMax, yMax (little-endian)
        exr[k] = 0xFF;
        exr[k + 1] = 0x3F;
        exr[k + 2] = exr[k + 3] = 0;
    }
    writeBytes(s.in / "big.exr", exr);
    expectRefused(s, {"convert", "--in", s.inPath("big.exr")}, {"big.exr"});
}

// [SECTION] finite but absurd heights ------------------------------------------------------------

TEST(Refusals, AbsurdButFiniteHeightsAreRefusedBeforeTheGpu) {
    Scratch s;
    for (float bad : {1e30f, FLT_MAX, -FLT_MAX, 1.5e7f, -2e7f, 3.4e37f}) {
        SCOPED_TRACE(bad);
        Heightmap m = smallTerrain(13, 9);
        m.heights[40] = bad;
        for (const char* ext : {".f32", ".tif", ".exr", ".asc"}) {
            const std::string name = std::string("absurd") + ext;
            saveHeightmap(s.in / name, m, 4.0);
            std::vector<std::string> in = {"--in", s.inPath(name)};
            if (std::string(ext) == ".f32") in.insert(in.end(), {"--size", "13x9"});
            for (const char* command : {"convert", "run", "fill"}) {
                std::vector<std::string> args = {command};
                args.insert(args.end(), in.begin(), in.end());
                expectRefused(s, args, {name, "(1, 3)", "heights must lie within"});
            }
        }
    }
    // The range's ends are accepted: a terrain in centimetres or feet converts.
    Heightmap edge = smallTerrain(13, 9);
    edge.heights[0] = -1e7f;
    edge.heights[1] = 1e7f;
    saveHeightmap(s.in / "edge.f32", edge, 4.0);
    const CliResult ok =
        runCli({"convert", "--in", s.inPath("edge.f32"), "--size", "13x9", "--out", s.outPath("e.tif")}, s.io);
    EXPECT_EQ(ok.code, 0) << ok;
}

TEST(Refusals, HeightRangesOutsideTheAcceptedRangeAreRefused) {
    Scratch s;
    validPng(s);
    for (const char* range : {"-1e308:1e308", "0:1e30", "-1e8:0", "0:10000001", "-3.4e38:0", "1e300:1e301"}) {
        SCOPED_TRACE(range);
        for (const char* command : {"convert", "run"})
            expectRefused(s, {command, "--in", s.inPath("valid.png"), "--height-range", range},
                          {"--height-range", "heights must lie within"});
    }
    // The same in a sidecar.
    saveHeightmap(s.in / "side.png", smallTerrain(13, 9), 4.0);
    writeFile(s.in / "side.png.json", "{\"min_m\": -1e308, \"max_m\": 1e308}");
    expectRefused(s, {"convert", "--in", s.inPath("side.png")}, {"side.png", "heights must lie within"});
    // A height range for the procedural terrain would be ignored: refused.
    expectRefused(s, {"run", "--height-range", "0:100"}, {"--height-range", "--in"});
}

// [SECTION] TIFFs whose tables disagree with their size ----------------------------------------------

namespace {

uint32_t le32(const Bytes& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
void putLe32(Bytes& b, size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) b[at + size_t(k)] = uint8_t(v >> (8 * k));
}

// The IFD entry of `tag` in a little-endian TIFF: the offset of its 12 bytes.
size_t ifdEntry(const Bytes& b, uint16_t tag) {
    const size_t ifd = le32(b, 4);
    const unsigned entries = unsigned(b[ifd]) | unsigned(b[ifd + 1]) << 8;
    for (unsigned e = 0; e < entries; ++e) {
        const size_t at = ifd + 2 + 12 * e;
        if ((unsigned(b[at]) | unsigned(b[at + 1]) << 8) == tag) return at;
    }
    ADD_FAILURE() << "no tag " << tag;
    return 0;
}

// A float TIFF of 13 x 9 cells written by libtiff with 2 rows per strip (5 strips), or as tiles.
Bytes stripedTiff(const Scratch& s, bool tiled) {
    const fs::path path = s.in / (tiled ? "tiles.tif" : "strips.tif");
    TIFF* t = TIFFOpen(path.c_str(), "w");
    EXPECT_NE(t, nullptr);
    const Heightmap m = smallTerrain(tiled ? 40 : 13, tiled ? 20 : 9);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, uint32_t(m.width));
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, uint32_t(m.height));
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (tiled) {
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        std::vector<float> tile(16 * 16);
        for (int ty = 0; ty < m.height; ty += 16)
            for (int tx = 0; tx < m.width; tx += 16) {
                for (int y = 0; y < 16; ++y)
                    for (int x = 0; x < 16; ++x)
                        tile[size_t(y * 16 + x)] = tx + x < m.width && ty + y < m.height ? m.at(tx + x, ty + y) : 0.0f;
                TIFFWriteTile(t, tile.data(), uint32_t(tx), uint32_t(ty), 0, 0);
            }
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 2);
        for (int y = 0; y < m.height; ++y)
            TIFFWriteScanline(t, const_cast<float*>(m.heights.data() + size_t(y) * size_t(m.width)), uint32_t(y), 0);
    }
    TIFFClose(t);
    return readBytes(path);
}

} // namespace

TEST(Refusals, TiffsWhoseStripOrTileTablesDisagreeAreRefused) {
    Scratch s;
    for (bool tiled : {false, true}) {
        const Bytes valid = stripedTiff(s, tiled);
        const CliResult ok = runCli(
            {"convert", "--in", s.inPath(tiled ? "tiles.tif" : "strips.tif"), "--out", s.outPath("ok.f32")}, s.io);
        ASSERT_EQ(ok.code, 0) << ok;
        const uint16_t offsets_tag = tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS;
        const uint16_t counts_tag = tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS;
        std::vector<std::pair<std::string, std::function<void(Bytes&)>>> lies = {
            {"fewer offsets", [&](Bytes& b) { putLe32(b, ifdEntry(b, offsets_tag) + 4, 2); }},
            {"fewer byte counts", [&](Bytes& b) { putLe32(b, ifdEntry(b, counts_tag) + 4, 2); }},
            {"taller image", [&](Bytes& b) { b[ifdEntry(b, TIFFTAG_IMAGELENGTH) + 8] += 30; }},
            {"wider image", [&](Bytes& b) { b[ifdEntry(b, TIFFTAG_IMAGEWIDTH) + 8] += 40; }},
            {"offset past the end",
             [&](Bytes& b) { putLe32(b, le32(b, ifdEntry(b, offsets_tag) + 8), uint32_t(b.size()) + 100); }},
            {"offset zero", [&](Bytes& b) { putLe32(b, le32(b, ifdEntry(b, offsets_tag) + 8), 0); }},
            {"byte count zero", [&](Bytes& b) { putLe32(b, le32(b, ifdEntry(b, counts_tag) + 8), 0); }},
            {"byte count past the end",
             [&](Bytes& b) { putLe32(b, le32(b, ifdEntry(b, counts_tag) + 8), uint32_t(b.size())); }},
        };
        if (!tiled)
            lies.push_back({"one row per strip", [&](Bytes& b) { b[ifdEntry(b, TIFFTAG_ROWSPERSTRIP) + 8] = 1; }});
        else
            lies.push_back({"larger tiles", [&](Bytes& b) { b[ifdEntry(b, TIFFTAG_TILEWIDTH) + 8] = 32; }});
        for (const auto& [what, lie] : lies) {
            SCOPED_TRACE(std::string(tiled ? "tiles: " : "strips: ") + what);
            Bytes b = valid;
            lie(b);
            writeBytes(s.in / "lie.tif", b);
            for (const char* command : {"convert", "run", "fill"})
                expectRefused(s, {command, "--in", s.inPath("lie.tif")}, {"lie.tif"});
        }
    }
}

// [SECTION] empty and overflowing option values -------------------------------------------------

namespace {

// The options of `command` that take a value, with CLI11's type name, from its --help.
std::vector<std::pair<std::string, std::string>> valueOptions(const Scratch& s, const std::string& command) {
    const CliResult help = runCli({command, "--help"}, s.io);
    EXPECT_EQ(help.code, 0) << help;
    std::vector<std::pair<std::string, std::string>> options;
    const std::regex line(R"(^\s+(?:-\w,)?(--[a-z0-9-]+)\s+(TEXT|INT|UINT|FLOAT)\b)");
    for (const std::string& l : splitLines(help.out)) {
        std::smatch m;
        if (std::regex_search(l, m, line)) options.push_back({m[1], m[2]});
    }
    return options;
}

// `command` with what else it needs to run but `option` (convert: an input); expectRefused adds
// the outputs.
std::vector<std::string> required(const Scratch& s, const std::string& command, const std::string& option) {
    if (command == "convert" && option != "--in") return {"convert", "--in", s.inPath("valid.png")};
    return {command};
}

} // namespace

TEST(Refusals, AMisspeltCommandIsNamedWithTheCommandsThereAre) {
    Scratch s;
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"rn", "--size", "8x8"}, {"--device", "0", "bogus"}}) {
        const std::string wrong = args[0] == "rn" ? "rn" : "bogus";
        SCOPED_TRACE(wrong);
        const CliResult r = runCli(args, s.io);
        EXPECT_TRUE(isOneLineError(r, 2, {"unknown command '" + wrong + "'", "run, view", "bench"}));
    }
}

TEST(Refusals, EveryOptionRefusesAnEmptyValue) {
    Scratch s;
    validPng(s);
    int checked = 0;
    for (const char* command : {"run", "view", "convert", "fill", "watertable", "bench"}) {
        const auto options = valueOptions(s, command);
        EXPECT_GE(options.size(), 4u) << command << ": its --help lists too few options";
        for (const auto& [option, type] : options) {
            SCOPED_TRACE(std::string(command) + " " + option + " ''");
            std::vector<std::string> args = required(s, command, option);
            args.insert(args.end(), {option, ""});
            if (std::string(command) == "bench") {
                const CliResult r = runCli(args, s.io);
                EXPECT_TRUE(isOneLineError(r, 2, {option}));
            } else {
                expectRefused(s, args, {option});
            }
            ++checked;
        }
    }
    EXPECT_GE(checked, 60);
}

TEST(Refusals, WholeNumbersOutOfRangeOrInDisguiseAreRefused) {
    Scratch s;
    validPng(s);
    int checked = 0;
    for (const char* command : {"run", "view", "fill", "watertable"})
        for (const auto& [option, type] : valueOptions(s, command)) {
            if (type != "UINT" && type != "INT") continue;
            for (const char* value : {"18446744073709551616", "99999999999999999999999", "-99999999999999999999", "010",
                                      "0x10", "1e3", "+5", " 7", "7 "}) {
                SCOPED_TRACE(std::string(command) + " " + option + " '" + value + "'");
                expectRefused(s, {command, option, value}, {option});
                ++checked;
            }
            if (type == "UINT") expectRefused(s, {command, option, "-1"}, {option});
        }
    EXPECT_GE(checked, 40);
    // The seed in particular: a 64-bit seed is accepted, one past it is not.
    const CliResult ok = runCli(
        {"run", "--size", "16x16", "--steps", "1", "--seed", "18446744073709551615", "--out", s.outPath("ok.f32")},
        s.io);
    EXPECT_EQ(ok.code, 0) << ok;
}

TEST(Refusals, NumbersThatAreNotFiniteAreRefused) {
    Scratch s;
    validPng(s);
    for (const char* command : {"run", "view", "convert", "fill", "watertable"})
        for (const auto& [option, type] : valueOptions(s, command)) {
            if (type != "FLOAT") continue;
            for (const char* value : {"nan", "inf", "-inf", "1e999", "NaN"}) {
                SCOPED_TRACE(std::string(command) + " " + option + " " + value);
                std::vector<std::string> args = required(s, command, option);
                args.insert(args.end(), {option, value});
                expectRefused(s, args, {option});
            }
        }
}

// [SECTION] paths that are not regular files -----------------------------------------------------

TEST(Refusals, InputsThatAreNotRegularFilesAreRefusedWithoutWaiting) {
    Scratch s;
    fs::create_directories(s.in / "folder.png");
    fs::create_directories(s.in / "folder.json");
    fs::create_directories(s.in / "folder.alluvium");
    for (const char* fifo : {"fifo.png", "fifo.f32", "fifo.tif", "fifo.exr", "fifo.asc", "fifo.json", "fifo.alluvium"})
        ASSERT_EQ(::mkfifo((s.in / fifo).c_str(), 0644), 0) << fifo;
    // A socket: bound, then left (its file stays). Its path must fit sun_path (108 bytes), which
    // a deep build tree's scratch folder may not: a short folder of its own under /tmp.
    char short_dir[] = "/tmp/alluvium-sock-XXXXXX";
    ASSERT_NE(::mkdtemp(short_dir), nullptr);
    const std::string sock_path = std::string(short_dir) + "/socket.png";
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
    std::strcpy(addr.sun_path, sock_path.c_str());
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(sock);
    fs::create_symlink(s.in / "fifo.png", s.in / "link.png");
    fs::create_symlink(s.in / "nowhere.png", s.in / "dangling.png");

    fs::create_symlink(sock_path, s.in / "socket.png");
    for (const char* in : {"folder.png", "fifo.png", "fifo.f32", "fifo.tif", "fifo.exr", "fifo.asc", "socket.png",
                           "link.png", "dangling.png"})
        for (const char* command : {"convert", "run", "fill", "watertable", "view"}) {
            SCOPED_TRACE(std::string(command) + " --in " + in);
            std::vector<std::string> args = {command, "--in", s.inPath(in)};
            if (std::string(in) == "fifo.f32") args.insert(args.end(), {"--size", "4x4"});
            expectRefused(s, args, {in});
        }
    expectRefused(s, {"convert", "--in", "/dev/null", "--size", "4x4"}, {"/dev/null"});
    for (const char* preset : {"folder.json", "fifo.json"})
        for (const char* command : {"run", "view", "fill", "watertable"}) {
            SCOPED_TRACE(std::string(command) + " --preset " + preset);
            expectRefused(s, {command, "--preset", s.inPath(preset)}, {preset, "regular file"});
        }
    for (const char* session : {"folder.alluvium", "fifo.alluvium"})
        for (const char* command : {"run", "view"}) {
            SCOPED_TRACE(std::string(command) + " --load-session " + session);
            expectRefused(s, {command, "--load-session", s.inPath(session)}, {session, "regular file"});
        }
    fs::remove_all(short_dir);
}
