// Covers causes.hpp as one catalogue: its rules (one type per cause, each row's numbers and
// words in its description, the layers and outcomes it names), and every placeholder of every
// row a fact the check gives. Each layer's recognition: causes_<layer>_test.cpp; the words a
// cause is given: causes_words_test.cpp.
#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "causes_test_support.hpp"

namespace kd {
namespace {

// ---- the table ----

TEST(Catalogue, EveryCauseHasItsOwnTypeAndKey) {
  std::set<std::string_view> types, keys;
  for (CauseId id : all_causes()) {
    EXPECT_TRUE(types.insert(cause_info(id).type).second) << cause_info(id).type;
    EXPECT_TRUE(keys.insert(cause_info(id).key).second) << cause_info(id).key.view();
    EXPECT_EQ(cause_from_type(cause_info(id).type), id);
  }
  EXPECT_FALSE(cause_from_type("c10::Error"));
  // The error types of outcomes that have no causes stay outside the catalogue.
  for (const char* type : {"OutputError", "Timeout", "WatchFailed", "InternalError",
                           "InconsistentVerdict"}) {
    EXPECT_FALSE(cause_from_type(type)) << type;
  }
}

// Each cause's type and key spell the one name of its row: "NoDriver", "no_driver".
TEST(Catalogue, TheKeyIsTheTypeInSnakeCase) {
  EXPECT_EQ(cause_info(CauseId::NoDriver).type, "NoDriver");
  EXPECT_EQ(cause_info(CauseId::NoDriver).key.view(), "no_driver");
  EXPECT_EQ(cause_info(CauseId::CLibraryTooOld).key.view(), "c_library_too_old");
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    std::string snake;
    for (char ch : c.type) {
      if (std::isupper(static_cast<unsigned char>(ch)) && !snake.empty()) snake += '_';
      snake += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    EXPECT_EQ(c.key.view(), snake) << c.type;
  }
}

// The check's own failures are no cause, and no two share a type.
TEST(Catalogue, TheChecksOwnFailuresAreNoCause) {
  std::set<std::string_view> types;
  for (std::string_view type : failure_types()) {
    EXPECT_TRUE(types.insert(type).second) << type;
    EXPECT_FALSE(cause_from_type(type)) << type;
  }
  EXPECT_EQ(failure_type(Failure::Timeout), "Timeout");
  EXPECT_EQ(failure_type(Failure::WorkerException), "WorkerException");
  EXPECT_EQ(types.size(), static_cast<size_t>(Failure::WorkerException) + 1);
}

// What a probe names: the one cause it can give is the catalogue's, the backend's own
// types none of the check's.
TEST(Catalogue, TheProbesTypesAreTheBackendsOrACause) {
  EXPECT_EQ(cause_from_type(KD_ERROR_STABLE_ABI_TOO_OLD), CauseId::StableAbiTooOld);
  const std::vector<std::string_view> failures = failure_types();
  for (const char* type : {KD_ERROR_OUT_OF_MEMORY, KD_ERROR_C10, KD_ERROR_BAD_ALLOC,
                           KD_ERROR_EXCEPTION, KD_ERROR_UNKNOWN, KD_ERROR_PROBE_STATE,
                           KD_ERROR_LOADER, KD_ERROR_DTYPE_MISSING}) {
    EXPECT_FALSE(cause_from_type(type)) << type;
    EXPECT_EQ(std::count(failures.begin(), failures.end(), type), 0) << type;
  }
}

// Where the check's sources give an error a type from a literal: ErrorInfo{"X", ...},
// ErrorInfo{std::string("X"), ...}, a probe's set_error(err, "X", ...) (a conditional
// too) or copy_text(err->type, sizeof err->type, "X"), a type compared with or set to
// "X", or a JSON error {"type", "X"}. Each is "file:line: X", by line. A literal is read up to
// its line's end (none of the check's spans two): std::regex's matcher recurses once a character,
// and a match from one string's closing quote to the next string over a page of code would
// overflow the stack of an unoptimised, sanitized test.
std::vector<std::string> literal_error_types(const std::string& file, const std::string& text) {
  static const std::regex kPatterns[] = {
      std::regex(R"re(ErrorInfo\s*[({]\s*(?:std::string\s*\(\s*)?"([^"\n]*)")re"),
      std::regex(R"re(set_error\s*\(\s*\w+\s*,[^,;]*?"([^"\n]*)")re"),
      std::regex(R"re(\btype\s*(?:==|!=|=)\s*"([^"\n]*)")re"),
      std::regex(R"re("([^"\n]*)"\s*(?:==|!=)\s*[\w.>-]*type\b)re"),
      std::regex(R"re([{,]\s*\{\s*"type"\s*,\s*"([^"\n]*)")re"),
      std::regex(R"re(\w+\s*\(\s*[\w.>-]*\btype\s*,\s*sizeof[^,]*,\s*"([^"\n]*)")re"),
  };
  std::vector<std::pair<long, std::string>> places;  // line, literal
  for (const std::regex& pattern : kPatterns) {
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
         it != std::sregex_iterator(); ++it) {
      places.emplace_back(1 + std::count(text.begin(), text.begin() + it->position(), '\n'),
                          (*it)[1].str());
    }
  }
  std::sort(places.begin(), places.end());
  std::vector<std::string> found;
  for (const auto& [line, literal] : places) {
    found.push_back(file + ":" + std::to_string(line) + ": " + literal);
  }
  return found;
}

TEST(Catalogue, TheScanFindsEveryKindOfLiteralType) {
  const std::string text =
      "ErrorInfo{\"A\", m};\nErrorInfo(std::string(\"B\"), m);\n"
      "set_error(err, oom ? \"C\" : KD_ERROR_C10, words);\n"
      "if (error.type == \"D\") {}\nif (\"E\" != verdict.error->type) {}\n"
      "error.type = \"F\";\nj[\"error\"] = {{\"type\", \"G\"}};\n"
      "ErrorInfo{failure_type(Failure::Timeout), \"a message\"};\n"
      "for (const char* key : {\"type\", \"message\"}) {}\n"
      "copy_text(err->type, sizeof err->type, \"H\");\n"
      "set_error(err, KD_ERROR_LOADER, text ? text : \"the loader gave no reason\");\n";
  EXPECT_EQ(literal_error_types("x.cpp", text),
            (std::vector<std::string>{"x.cpp:1: A", "x.cpp:2: B", "x.cpp:3: C", "x.cpp:4: D",
                                      "x.cpp:5: E", "x.cpp:6: F", "x.cpp:7: G",
                                      "x.cpp:10: H"}));
}

// Every error.type the check writes comes from the cause catalogue, the check's own
// failures (Failure) or the probe's list (probe_abi.h): no source of the check spells
// one as a literal.
TEST(Catalogue, NoErrorTypeIsALiteralOutsideTheTables) {
  namespace fs = std::filesystem;
  const fs::path root = KD_CHECK_SOURCE_DIR;
  std::vector<std::string> found;
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& path = entry.path();
    const std::string ext = path.extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
    const std::string relative = fs::relative(path, root).string();
    if (relative.rfind("tests/", 0) == 0) continue;
    std::ifstream in(path);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ++files;
    for (std::string& place : literal_error_types(relative, text)) found.push_back(place);
  }
  EXPECT_GT(files, 20u) << "the check's sources are not at " << root;
  EXPECT_TRUE(found.empty()) << "error.type literals outside the tables:\n"
                             << ::testing::PrintToString(found);
}

// The catalogue reads as a table, a layer a file (causes/<layer>.hpp): in each layer's table
// (inline constexpr CauseInfo k<Layer>Causes[]) each cause is one entry whose row is its first
// line, {CAUSE(Name), stage, outcome, where, how, and its words (title, how it is recognised,
// message, next action) the lines below it; nothing else is there but comments and blank lines.
TEST(Catalogue, EachCauseIsOneEntryWithItsRowOnOneLine) {
  namespace fs = std::filesystem;
  static const std::regex kTable(R"re(inline constexpr CauseInfo k\w+Causes\[\] = \{)re");
  static const std::regex kRow(R"re(    \{CAUSE\(\w+\),\s*\w+,\s*\w+,\s*[\w| ]+,\s*\S.*,)re");
  static const std::regex kWords(R"re(     (".*"|k\w+)(,|\},)?)re");
  static const std::regex kNoCode(R"re(\s*(//.*)?)re");
  size_t rows = 0;
  size_t tables = 0;
  std::vector<std::string> not_entries;
  const fs::path folder = fs::path(KD_CHECK_SOURCE_DIR) / "causes";
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::ifstream in(entry.path());
    std::string line;
    long number = 0;
    bool open = false;
    while (std::getline(in, line)) {
      ++number;
      if (!open) {
        open = std::regex_match(line, kTable);
        tables += open ? 1 : 0;
        continue;
      }
      if (line == "};") break;
      if (std::regex_match(line, kRow)) {
        ++rows;
      } else if (!std::regex_match(line, kWords) && !std::regex_match(line, kNoCode)) {
        not_entries.push_back(entry.path().filename().string() + ":" + std::to_string(number) +
                              ": " + line);
      }
    }
  }
  EXPECT_GE(tables, 8u) << "the layers' tables are not in " << folder;
  EXPECT_TRUE(not_entries.empty()) << "lines of a table that are neither a row nor its words:\n"
                                   << ::testing::PrintToString(not_entries);
  EXPECT_EQ(rows, all_causes().size());
}

TEST(Catalogue, EveryRowSaysWhatAndWhatToDo) {
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    EXPECT_FALSE(c.title.empty()) << c.key.view();
    EXPECT_FALSE(c.recognised.empty()) << c.key.view();
    EXPECT_EQ(c.what.back(), '.') << c.key.view();
    EXPECT_EQ(c.next_action.back(), '.') << c.key.view();
  }
}

// The description a reader sees names what the code matches on.
TEST(Catalogue, TheDescriptionNamesEveryNumberAndWord) {
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    const std::string recognised(c.recognised);
    for (int n : c.how.numbers) {
      // The system's numbers by name ("EAGAIN"), which is what errno.h calls them.
      const std::string number = c.how.api == Api::System ? errno_name(n) : std::to_string(n);
      if (n != 0) {
        EXPECT_TRUE(has(recognised, number)) << c.key.view() << ": " << number;
      }
    }
    for (std::string_view w : c.how.words) {
      // "version `GLIBCXX_" is described as "`GLIBCXX_...'".
      std::string word(w.rfind("version `", 0) == 0 ? w.substr(9) : w);
      if (!word.empty()) {
        EXPECT_TRUE(has(recognised, word)) << c.key.view() << ": " << word;
      }
    }
  }
}

// Each row's outcome is one its layer can end in.
TEST(Catalogue, LayersAndOutcomesAgree) {
  const std::vector<std::pair<unsigned, std::set<Outcome>>> layers = {
      {kDeviceCount | kDeviceStart, {Outcome::GpuUnavailable}},
      {kCompute, {Outcome::RuntimeError}},
      {kLoader, {Outcome::TorchMissing, Outcome::TorchImportFailed}},
      {kWorkerStart, {Outcome::WorkerFailed, Outcome::InternalError}},
      {kWorkerEnd, {Outcome::WorkerFailed, Outcome::OutOfMemory}},
      {kAllocation, {Outcome::OutOfMemory}},
      {kStdout, {Outcome::OutputWriteFailed}},
      {kTorchSearch | kPythonImport, {Outcome::TorchMissing, Outcome::TorchImportFailed}},
      {kStableProbe, {Outcome::TorchImportFailed}},
      {kApplication, {Outcome::ExtensionImportFailed}},
      {kWeights, {Outcome::WeightsUnusable}},
      {kBackendLibraries, {Outcome::BackendLibraryMismatch}},
      {kCompile, {Outcome::CompileFailed}},
      {kWeightsMemory, {Outcome::OutOfMemory}},
      {kPrecision, {Outcome::RuntimeError}},
  };
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    int layers_met = 0;
    for (const auto& [where, outcomes] : layers) {
      if ((c.where & where) == 0) continue;
      ++layers_met;
      EXPECT_TRUE(outcomes.count(c.outcome)) << c.key.view();
    }
    EXPECT_EQ(layers_met, 1) << c.key.view();
  }
  // A worker that could not start is the environment's only under a limit.
  EXPECT_EQ(cause_info(CauseId::SpawnFailed).outcome, Outcome::InternalError);
}

TEST(Catalogue, EachRowNamesTheStagesItsReportCanHave) {
  EXPECT_EQ(stage_text(CauseId::NoDriver), "device");
  EXPECT_EQ(stage_text(CauseId::TorchNotFound), "import");
  EXPECT_EQ(stage_text(CauseId::ProcessLimitAtStart), "import");
  EXPECT_EQ(stage_text(CauseId::KilledFromOutside), "the last stage reached");
  EXPECT_EQ(stage_text(CauseId::KilledForMemory), "the last stage reached");
  EXPECT_EQ(stage_text(CauseId::WorkerFailed), "the last stage reached");
  EXPECT_EQ(stage_text(CauseId::AllocationUnderAddressSpaceLimit), "device or compute");
  EXPECT_EQ(stage_text(CauseId::StdoutWriteFailed), "output");
}

// The generic rows of the worker say what their outcomes say.
TEST(Catalogue, TheWorkersGenericRowsKeepTheOutcomesWords) {
  const CauseInfo& spawn = cause_info(CauseId::SpawnFailed);
  EXPECT_EQ(spawn.what, info(Outcome::InternalError).meaning);
  EXPECT_EQ(spawn.next_action, info(Outcome::InternalError).next_action);
  EXPECT_EQ(cause_info(CauseId::WorkerFailed).next_action, info(Outcome::WorkerFailed).next_action);
}

// The {name}s of a row's sentences.
std::vector<std::string> placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
    size_t close = text.find('}', open);
    if (close != std::string_view::npos) names.emplace_back(text.substr(open + 1, close - open - 1));
  }
  return names;
}

TEST(CauseWords, EveryPlaceholderOfEveryRowIsAFactTheCheckGives) {
  Evidence e = cuda_answer(803);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  e.visible_devices->at(0).second = "-1";
  e.driver_library = "libcuda.so.550.54.15";
  e.kernel_module = "535.104.05";
  e.library = LibraryCopy{"libc10.so", CopyState::OtherMachine, "aarch64"};
  e.device_cgroup = DeviceCgroup{};
  e.driver_files = DriverFiles{};
  e.rocm = RocmFacts{};
  Facts f = facts_for(&e, "/lib/libc.so.6: version `GLIBC_2.99' not found (required by /x/libc10.so)",
                      address_space(1024 * kMiB));
  // What the parent adds: the worker's stage, how it ended, why stdout refused.
  FactSources parent;
  parent.stage = "compute";
  parent.how = "killed by signal SIGSEGV";
  parent.write_error = "No space left on device";
  // What the python probe's import gives: the interpreter and the exception's facts.
  PythonImport import;
  import.module = "typing_extensions";
  import.torch_module = "torch._utils_internal";
  import.extension_pythons = {"3.13"};
  parent.import = &import;
  parent.python_version = "3.11.2";
  // What a module asked with --import that failed gives.
  ExtensionImport extension = torchvision_for_other_torch();
  parent.extension = &extension;
  WeightsFile weights;
  weights.file = "model.safetensors";
  parent.weights = &weights;
  parent.torch_version = "2.15.0";
  BackendLibrary cudnn;
  cudnn.name = "cudnn";
  parent.library = &cudnn;
  CompileFacts compile;
  parent.compile = &compile;
  WeightsMemory memory;
  memory.weights_bytes = 8LL << 30;
  memory.limited_by = "cgroup";
  parent.memory = &memory;
  PrecisionRun precision;
  precision.dtype = "float16";
  precision.device = "cpu";
  parent.precision = &precision;
  for (const auto& [name, value] : cause_facts(parent, Sanitizer({}))) f.emplace(name, value);
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    for (const auto& name : placeholders(std::string(c.what) + std::string(c.next_action))) {
      EXPECT_TRUE(f.count(name)) << c.key.view() << " names {" << name
                                 << "}, which no fact gives";
    }
  }
}

}  // namespace
}  // namespace kd
