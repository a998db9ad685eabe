// Covers causes.hpp: the catalogue's rules (one type per cause, each row's
// numbers and words in its description), which cause each runtime answer,
// evidence, loader message, worker's start and end and allocation is, and
// the words a cause is given.
#include "causes/causes.hpp"

#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "probe/probe_abi.h"

namespace kd {

// A cause in a failure message: its error.type.
void PrintTo(CauseId id, std::ostream* os) { *os << cause_info(id).type; }

namespace {

bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

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

// ---- the device layer ----

Evidence cuda_answer(int error, std::optional<std::string> driver = std::string("13.2")) {
  Evidence e;
  e.runtime = RuntimeAnswer{"cuda", error, "cudaErrorX", std::move(driver), std::string("13.2")};
  DeviceNodes n;
  n.nvidiactl = NodeState::Accessible;
  n.nvidia_uvm = NodeState::Accessible;
  n.nvidia_gpus = n.nvidia_gpus_accessible = 1;
  e.device_nodes = n;
  VisibleDevices none;
  for (const auto& v : visibility_variables()) none.emplace_back(v, std::nullopt);
  e.visible_devices = none;
  return e;
}

CauseId device(const Evidence& e, std::string_view words = "") {
  return recognise_device(e, words, kDeviceCount).value_or(CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, EachRuntimeNumberIsItsCause) {
  EXPECT_EQ(device(cuda_answer(802)), CauseId::FabricManagerNotRunning);
  EXPECT_EQ(device(cuda_answer(803)), CauseId::DriverMismatch);
  EXPECT_EQ(device(cuda_answer(804)), CauseId::CompatNotSupported);
  EXPECT_EQ(device(cuda_answer(46)), CauseId::DevicesBusy);
  EXPECT_EQ(device(cuda_answer(304)), CauseId::OsCallRefused);
  EXPECT_EQ(device(cuda_answer(3)), CauseId::DriverInitFailed);
  EXPECT_EQ(device(cuda_answer(2)), CauseId::OutOfMemoryAtInit);
  EXPECT_EQ(device(cuda_answer(999)), CauseId::UnknownDriverError);
  EXPECT_EQ(device(cuda_answer(100)), CauseId::NoDevice);
  EXPECT_EQ(device(cuda_answer(35)), CauseId::DriverTooOld);
  EXPECT_EQ(device(cuda_answer(35, std::nullopt)), CauseId::NoDriver);
  EXPECT_EQ(device(cuda_answer(801)), CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, TheNumberWinsOverLibtorchsWords) {
  EXPECT_EQ(device(cuda_answer(803), "Found no NVIDIA driver on your system"),
            CauseId::DriverMismatch);
}

TEST(RecogniseDevice, WithoutARuntimeLibtorchsWordsAreRead) {
  Evidence none;
  EXPECT_EQ(device(none, "Found no NVIDIA driver on your system."), CauseId::NoDriver);
  EXPECT_EQ(device(none, "The NVIDIA driver on your system is too old (found version 11080)"),
            CauseId::DriverTooOld);
  EXPECT_EQ(device(none, "No HIP GPUs are available"), CauseId::NoDevice);
  EXPECT_EQ(device(none, "libtorch reports the GPU unavailable with 0 visible device(s)"),
            CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, NoNodesAtAllIsNamedBeforeTheNumber) {
  for (int error : {100, 999, 3, 304}) {
    Evidence e = cuda_answer(error);
    e.device_nodes = DeviceNodes{};
    EXPECT_EQ(device(e), CauseId::NoDeviceNodes) << error;
  }
  Evidence fabric = cuda_answer(802);
  fabric.device_nodes = DeviceNodes{};
  EXPECT_EQ(device(fabric), CauseId::FabricManagerNotRunning);
}

TEST(RecogniseDevice, NodesThisUserMayNotOpen) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidia_gpus_accessible = 0;
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
  e = cuda_answer(999);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
}

TEST(RecogniseDevice, AVisibilityVariableHidesGpusWhoseNodesExist) {
  Evidence e = cuda_answer(100);
  e.visible_devices->at(0).second = "-1";
  EXPECT_EQ(device(e), CauseId::GpusHidden);
  // NVIDIA_VISIBLE_DEVICES is the container runtime's, not the driver's.
  e = cuda_answer(100);
  e.visible_devices->at(1).second = "void";
  EXPECT_EQ(device(e), CauseId::NoDevice);
  // Without nodes, the variable is not why.
  e = cuda_answer(100);
  e.visible_devices->at(0).second = "-1";
  e.device_nodes = DeviceNodes{};
  EXPECT_EQ(device(e), CauseId::NoDeviceNodes);
}

TEST(RecogniseDevice, UnknownErrorWithoutNvidiaUvm) {
  Evidence e = cuda_answer(999);
  e.device_nodes->nvidia_uvm = NodeState::Absent;
  EXPECT_EQ(device(e), CauseId::UvmMissing);
}

TEST(RecogniseDevice, HipNumbersAndNodes) {
  Evidence e;
  e.runtime = RuntimeAnswer{"hip", 100, "hipErrorNoDevice", std::string("6.2"), std::string("6.2")};
  DeviceNodes n;  // an NVIDIA node means nothing to HIP
  n.nvidia_gpus = 1;
  e.device_nodes = n;
  EXPECT_EQ(device(e), CauseId::NoDeviceNodes);
  e.device_nodes->kfd = NodeState::Accessible;
  e.device_nodes->render_nodes = e.device_nodes->render_nodes_accessible = 1;
  EXPECT_EQ(device(e), CauseId::NoDevice);
  e.device_nodes->kfd = NodeState::NotAccessible;
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
  e.device_nodes->kfd = NodeState::Accessible;
  e.runtime->error = 803;  // a CUDA number only
  EXPECT_EQ(device(e), CauseId::GpuUnavailable);
  e.runtime->error = 2;
  EXPECT_EQ(device(e), CauseId::OutOfMemoryAtInit);
}

TEST(RecogniseDevice, StartingTheDeviceHasItsOwnFewCauses) {
  EXPECT_EQ(recognise_device(cuda_answer(46), "", kDeviceStart), CauseId::DevicesBusy);
  EXPECT_FALSE(recognise_device(cuda_answer(2), "", kDeviceStart));
  EXPECT_FALSE(recognise_device(Evidence{}, "", kDeviceStart));
}

TEST(RecogniseCompute, GpuFaultsByNumber) {
  EXPECT_EQ(recognise_compute(cuda_answer(209)), CauseId::NoKernelImage);
  EXPECT_EQ(recognise_compute(cuda_answer(700)), CauseId::GpuFault);
  EXPECT_EQ(recognise_compute(cuda_answer(719)), CauseId::GpuFault);
  EXPECT_EQ(recognise_compute(cuda_answer(214)), CauseId::UncorrectableEcc);
  EXPECT_FALSE(recognise_compute(cuda_answer(2)));
  EXPECT_FALSE(recognise_compute(cuda_answer(0)));
  EXPECT_FALSE(recognise_compute(Evidence{}));
}


// ---- the causes users meet most ----

// A v1 device cgroup whose devices.list refuses the control nodes and the one GPU.
DeviceCgroup v1_cgroup_refusing_all() {
  DeviceCgroup c;
  c.hierarchy = "v1";
  c.devices_list = "denies";
  c.nvidiactl = c.nvidia_uvm = true;
  c.nvidia_gpus = 1;
  return c;
}

TEST(RecogniseDevice, TheDeviceCgroupsRefusalIsNotTheUsers) {
  for (int error : {100, 999, 3, 304}) {
    Evidence e = cuda_answer(error);
    e.device_nodes->nvidiactl = e.device_nodes->nvidia_uvm = NodeState::NotAccessible;
    e.device_nodes->nvidia_gpus_accessible = 0;
    e.device_cgroup = v1_cgroup_refusing_all();
    EXPECT_EQ(device(e), CauseId::DeviceCgroupDenied) << error;
    // The same nodes refused by their mode are the user's.
    e.device_cgroup = DeviceCgroup{};
    EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible) << error;
  }
}

TEST(RecogniseDevice, EveryGpuRefusedTheControlNodeOpenIsNoGpuGranted) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidia_gpus = 2;
  e.device_nodes->nvidia_gpus_accessible = 0;
  DeviceCgroup c;
  c.nvidia_gpus = 2;
  e.device_cgroup = c;
  EXPECT_EQ(device(e), CauseId::NoGpuGranted);
  // Only some GPUs refused, the control node open: a job given other GPUs, no fault, no cause.
  e.device_nodes->nvidia_gpus_accessible = 1;
  e.device_cgroup->nvidia_gpus = 1;
  EXPECT_EQ(device(e), CauseId::NoDevice);
  e.visible_devices->at(0).second = "index_list";
  EXPECT_EQ(device(e), CauseId::GpusHidden);
}

TEST(RecogniseDevice, HipsControlNodeIsKfd) {
  Evidence e;
  e.runtime = RuntimeAnswer{"hip", 100, "hipErrorNoDevice", std::string("6.2"), std::string("6.2")};
  DeviceNodes n;
  n.kfd = NodeState::NotAccessible;
  n.render_nodes = 1;
  e.device_nodes = n;
  DeviceCgroup c;
  c.kfd = true;
  c.render_nodes = 1;
  e.device_cgroup = c;
  EXPECT_EQ(device(e), CauseId::DeviceCgroupDenied);
}

TEST(RecogniseDevice, AGroupTheUserNamespaceLacks) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  e.device_nodes->nvidia_gpus_accessible = 0;
  e.user_namespace = UserNamespace{false, 2};
  EXPECT_EQ(device(e), CauseId::NodeGroupUnmapped);
  e.user_namespace = UserNamespace{true, 0};
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
}

TEST(RecogniseDevice, TheStubDriverByItsNumberAndItsFile) {
  Evidence e = cuda_answer(34, std::nullopt);
  DriverFiles stub;
  stub.libcuda_so_1 = true;
  stub.libcuda_file = "libcuda.so";
  stub.libcuda_folder = "stubs";
  e.driver_files = stub;
  EXPECT_EQ(device(e), CauseId::StubDriver);
  e.driver_files->libcuda_folder = "other";
  e.driver_files->libcuda_file = "libcuda.so.1";  // unversioned: a copy of the stub
  EXPECT_EQ(device(e), CauseId::StubDriver);
  // A driver with its version in its name answering 34 is not named a stub.
  e.driver_files->libcuda_file = "libcuda.so.550.54.15";
  EXPECT_EQ(device(e), CauseId::GpuUnavailable);
  e.driver_files.reset();
  EXPECT_EQ(device(e), CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, NoDriverVersionTheFilesSayWhichPartIsMissing) {
  Evidence e = cuda_answer(35, std::nullopt);
  DriverFiles files;
  files.libcuda_version_without_link = "550.54.15";
  e.driver_files = files;
  EXPECT_EQ(device(e), CauseId::DriverLinkMissing);
  e.driver_files = DriverFiles{};
  e.driver_files->libnvidia_ml_so_1 = true;
  EXPECT_EQ(device(e), CauseId::DriverCapabilityMissing);
  // Without the GPUs' nodes, NVML alone is not the capability's sign.
  e.device_nodes = DeviceNodes{};
  EXPECT_EQ(device(e), CauseId::NoDriver);
  e = cuda_answer(35, std::nullopt);
  e.driver_files = DriverFiles{};
  EXPECT_EQ(device(e), CauseId::NoDriver);
}

TEST(RecogniseDevice, UuidsWithoutNodesAreTheDevicePluginWithoutTheRuntime) {
  for (int error : {35, 100, 999, 3}) {
    Evidence e = cuda_answer(error, std::nullopt);
    e.device_nodes = DeviceNodes{};
    e.visible_devices->at(1).second = "uuid_list";
    EXPECT_EQ(device(e), CauseId::GpusWithoutNvidiaRuntime) << error;
    e.visible_devices->at(1).second = "all";  // every CUDA base image sets it
    EXPECT_NE(device(e), CauseId::GpusWithoutNvidiaRuntime) << error;
  }
}

TEST(RecogniseDevice, Wsl2HasNoNvidiaNodes) {
  Evidence e = cuda_answer(35, std::nullopt);
  e.device_nodes = DeviceNodes{};
  e.device_nodes->dxg = NodeState::Accessible;
  e.wsl_kernel = true;
  EXPECT_EQ(device(e), CauseId::WslGpuNotReached);
  e.wsl_kernel = false;
  EXPECT_EQ(device(e), CauseId::NoDriver);
  e = cuda_answer(100);
  e.device_nodes = DeviceNodes{};
  e.wsl_kernel = true;
  EXPECT_EQ(device(e), CauseId::WslGpuNotReached);
}

TEST(RecogniseCompute, RocmArchitectureAndPtx) {
  Evidence e;
  e.runtime = RuntimeAnswer{"hip", 98, "hipErrorInvalidDeviceFunction", std::nullopt, std::nullopt};
  EXPECT_FALSE(recognise_compute(e));  // the target unknown: the backend's error stands
  e.rocm = RocmFacts{std::string("gfx1031"), std::nullopt};
  EXPECT_EQ(recognise_compute(e), CauseId::RocmArchitectureMissing);
  e.runtime->error = 209;
  EXPECT_EQ(recognise_compute(e), CauseId::RocmArchitectureMissing);
  e.rocm.reset();
  EXPECT_EQ(recognise_compute(e), CauseId::NoKernelImage);
  EXPECT_EQ(recognise_compute(cuda_answer(222)), CauseId::PtxTooNew);
  EXPECT_FALSE(recognise_compute(cuda_answer(98)));  // 98 of CUDA is another error
}

TEST(RecogniseShadowing, AVersionedLibraryFromTheLibraryPath) {
  const std::string words =
      "/w/nvidia/cu13/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_13_2, version "
      "libnvJitLink.so.13";
  LibraryCopy taken("libnvJitLink.so.13", CopyState::Readable);
  taken.folder = "cuda_toolkit";
  EXPECT_EQ(recognise_shadowing(words, taken), CauseId::CudaLibraryShadowed);
  taken.folder = "ld_library_path";
  EXPECT_EQ(recognise_shadowing(words, taken), CauseId::CudaLibraryShadowed);
  // Taken from its own folders, the library is not shadowed: the words keep their cause.
  taken.folder = "own_path";
  EXPECT_FALSE(recognise_shadowing(words, taken));
  taken.folder = "system";
  EXPECT_FALSE(recognise_shadowing(words, taken));
  // libtorch's own libraries shadowing each other are builds mixed.
  LibraryCopy c10("libc10.so", CopyState::Readable);
  c10.folder = "ld_library_path";
  EXPECT_FALSE(recognise_shadowing("/x/libtorch_cpu.so: undefined symbol: _ZN3c10, version libc10.so",
                                   c10));
  EXPECT_FALSE(recognise_shadowing("/x/libtorch_cpu.so: undefined symbol: _ZN3c10", taken));
  // Without the copy, the worker's answer is what it was.
  EXPECT_EQ(recognise_loader(words, std::nullopt), CauseId::MixedBuilds);
}

// ---- the import layer ----

CauseId loader(std::string_view words, std::optional<LibraryCopy> copy = std::nullopt) {
  return recognise_loader(words, copy);
}

TEST(RecogniseLoader, MissingLibraries) {
  EXPECT_EQ(loader("/x/probe.so: libc10.so: cannot open shared object file: No such file or directory"),
            CauseId::TorchNotFound);
  EXPECT_EQ(cause_info(CauseId::TorchNotFound).outcome, Outcome::TorchMissing);
  EXPECT_EQ(loader("libcudart.so.13: cannot open shared object file: No such file or directory"),
            CauseId::DependencyNotFound);
  EXPECT_EQ(loader("/opt/libtorch/lib/libcudnn.so.8: cannot open shared object file: No such file"),
            CauseId::DependencyNotFound);
  EXPECT_EQ(loader("libfoo.so: cannot open shared object file: No such file; "
                   "libc10_cuda.so: cannot open shared object file: No such file"),
            CauseId::TorchNotFound);
}

TEST(RecogniseLoader, ACopyTheLoaderSkippedIsTheCause) {
  const std::string words = "libc10.so: cannot open shared object file: No such file or directory";
  EXPECT_EQ(loader(words, LibraryCopy{"libc10.so", CopyState::NotReadable, std::nullopt}),
            CauseId::LibraryUnreadable);
  EXPECT_EQ(loader(words, LibraryCopy{"libc10.so", CopyState::OtherMachine, "aarch64"}),
            CauseId::WrongArchitecture);
  EXPECT_EQ(loader(words, LibraryCopy{"libc10.so", CopyState::Absent, std::nullopt}),
            CauseId::TorchNotFound);
  EXPECT_EQ(loader("/x/libc10.so: cannot open shared object file: Permission denied"),
            CauseId::LibraryUnreadable);
}

TEST(RecogniseLoader, TheLoadersWordsNameTheRest) {
  EXPECT_EQ(loader("/lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
                   "/x/libc10.so)"),
            CauseId::CxxRuntimeTooOld);
  EXPECT_EQ(loader("/lib/libstdc++.so.6: version `CXXABI_1.3.15' not found (required by /x/a.so)"),
            CauseId::CxxRuntimeTooOld);
  EXPECT_EQ(loader("/lib/libc.so.6: version `GLIBC_2.38' not found (required by /x/libc10.so)"),
            CauseId::CLibraryTooOld);
  EXPECT_EQ(loader("/x/libtorch_cpu.so: undefined symbol: _ZN3c10"), CauseId::MixedBuilds);
  EXPECT_EQ(loader("libc10.so: wrong ELF class: ELFCLASS32"), CauseId::WrongArchitecture);
  EXPECT_EQ(loader("/x/libc10.so: invalid ELF header"), CauseId::CorruptLibrary);
  EXPECT_EQ(loader("/x/libc10.so: file too short"), CauseId::CorruptLibrary);
  EXPECT_EQ(loader("/x/libc10.so: cannot read file data"), CauseId::CorruptLibrary);
  EXPECT_EQ(loader("something else entirely"), CauseId::LoaderError);
  EXPECT_EQ(loader(""), CauseId::LoaderError);
}

TEST(RecogniseDamagedLibrary, ADamagedFileTheImportNeedsIsACorruptLibrary) {
  LibraryCopy damaged("libc10.so", CopyState::Damaged);
  damaged.size = 680;
  damaged.needed_size = 1671216;
  damaged.damage = "truncated";
  EXPECT_EQ(recognise_damaged_library(damaged), CauseId::CorruptLibrary);
  EXPECT_FALSE(recognise_damaged_library(LibraryCopy("libc10.so", CopyState::Readable)));
  EXPECT_FALSE(recognise_damaged_library(LibraryCopy("libc10.so", CopyState::Absent)));
  // The loader's words of a missing library stay what they were beside such a copy.
  EXPECT_EQ(loader("libc10.so: cannot open shared object file: No such file or directory",
                   LibraryCopy("libc10.so", CopyState::Absent)),
            CauseId::TorchNotFound);
}

TEST(RecogniseLoader, RunningOutOfMemoryIsToldApart) {
  EXPECT_EQ(loader("libcodec2.so.1.0: failed to map segment from shared object"),
            CauseId::AddressSpaceLimit);
  EXPECT_EQ(loader("/x/libc10.so: cannot map zero-fill pages"), CauseId::AddressSpaceLimit);
  EXPECT_EQ(loader("/x/libgomp.so.1: cannot allocate memory in static TLS block"),
            CauseId::LoaderError);
}

// ---- the worker's start and end, an allocation ----

TEST(RecogniseWorkerStart, ByTheSystemsErrorNumber) {
  EXPECT_EQ(recognise_worker_start(EAGAIN), CauseId::ProcessLimitAtStart);
  EXPECT_EQ(recognise_worker_start(ENOMEM), CauseId::OutOfMemoryAtStart);
  EXPECT_EQ(recognise_worker_start(EMFILE), CauseId::OpenFileLimitAtStart);
  EXPECT_EQ(recognise_worker_start(ENFILE), CauseId::OpenFileLimitAtStart);
}

TEST(RecogniseWorkerStart, OtherErrorsAreNoResourceLimit) {
  // A missing or unrunnable program: a defect of the check or its installation.
  for (int other : {ENOENT, EACCES, ENOEXEC, 0}) {
    EXPECT_EQ(recognise_worker_start(other), CauseId::SpawnFailed) << other;
  }
}

WaitStatus killed_by(int sig) { return WaitStatus{true, true, -1, sig}; }
WaitStatus exited_with(int code) { return WaitStatus{true, false, code, 0}; }

// The worker's end under `limits`: by default, no out-of-memory kill counted while it ran.
CauseId worker_end(const WaitStatus& status, std::string_view last_words,
                   const ResourceLimits& limits = {}) {
  return recognise_worker_end(status, last_words, limits);
}

ResourceLimits oom_kills_while_running(std::optional<unsigned long long> kills) {
  ResourceLimits limits;
  limits.cgroup_memory = 16ULL << 20;
  limits.oom_kills_while_running = kills;
  return limits;
}

// The sign is the cgroups' own count of kills, not a guess from the signal: a SIGKILL while it
// rose is the out-of-memory killer's, whatever the last words.
TEST(RecogniseWorkerEnd, ASigkillWhileTheOomKillCountRoseIsTheOutOfMemoryKillers) {
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "", oom_kills_while_running(1)),
            CauseId::KilledForMemory);
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "  what():  std::bad_alloc", oom_kills_while_running(2)),
            CauseId::KilledForMemory);
  EXPECT_EQ(cause_info(CauseId::KilledForMemory).outcome, Outcome::OutOfMemory);
}

// Without a rise, or without a count to read, a SIGKILL stays one from outside; and a rise
// beside another end is not the out-of-memory killer's (it kills with SIGKILL only).
TEST(RecogniseWorkerEnd, WithoutTheCountsRiseASigkillStaysFromOutside) {
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "", oom_kills_while_running(0)),
            CauseId::KilledFromOutside);
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "", oom_kills_while_running(std::nullopt)),
            CauseId::KilledFromOutside);
  EXPECT_EQ(worker_end(killed_by(SIGSEGV), "", oom_kills_while_running(1)),
            CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(exited_with(1), "fatal: out of memory", oom_kills_while_running(1)),
            CauseId::DiedForLackOfMemory);
}

TEST(RecogniseWorkerEnd, AnOutsideSigkillComesBeforeTheLastWords) {
  EXPECT_EQ(worker_end(killed_by(SIGKILL), ""), CauseId::KilledFromOutside);
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "terminate called after throwing an "
                                                     "instance of 'std::bad_alloc'"),
            CauseId::KilledFromOutside);
}

TEST(RecogniseWorkerEnd, LastWordsOfLackOfMemory) {
  EXPECT_EQ(worker_end(killed_by(SIGABRT), "  what():  std::bad_alloc"),
            CauseId::DiedForLackOfMemory);
  EXPECT_EQ(worker_end(exited_with(1), "mmap: Cannot allocate memory"),
            CauseId::DiedForLackOfMemory);
  EXPECT_EQ(worker_end(exited_with(1), "fatal: out of memory"),
            CauseId::DiedForLackOfMemory);
}

TEST(RecogniseWorkerEnd, LastWordsOfAThreadThatCouldNotStart) {
  EXPECT_EQ(worker_end(exited_with(1), "libgomp: Thread creation failed: Resource "
                                                 "temporarily unavailable"),
            CauseId::ThreadStartFailed);
  EXPECT_EQ(worker_end(killed_by(SIGABRT), "pthread_create failed"),
            CauseId::ThreadStartFailed);
}

TEST(RecogniseWorkerEnd, OtherEndsAreTheGenericRow) {
  EXPECT_EQ(worker_end(killed_by(SIGSEGV), ""), CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(killed_by(SIGTERM), ""), CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(exited_with(3), "some last words"), CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(exited_with(0), ""), CauseId::WorkerFailed);
}

TEST(RecogniseAllocation, OnlyUnderAnAddressSpaceLimit) {
  ResourceLimits limits;
  EXPECT_FALSE(recognise_allocation(limits));
  limits.cgroup_memory = 1ULL << 30;  // the out-of-memory killer's, not an allocation's
  EXPECT_FALSE(recognise_allocation(limits));
  limits.address_space = 256ULL << 20;
  EXPECT_EQ(recognise_allocation(limits), CauseId::AllocationUnderAddressSpaceLimit);
}

// ---- the words ----

TEST(CauseWords, PlaceholdersAreFilledAndMissingOnesSaySo) {
  EXPECT_EQ(fill("a {x} b {y}.", {{"x", "1"}}), "a 1 b unknown.");
  EXPECT_EQ(fill("no placeholder", {}), "no placeholder");
  EXPECT_EQ(fill("open { only", {}), "open { only");
}

Facts facts_for(const Evidence* e, std::string_view words, const ResourceLimits& limits = {}) {
  FactSources sources;
  sources.evidence = e;
  sources.error_message = words;
  sources.backend = "cuda";
  sources.capability = "9.0";
  sources.limits = &limits;
  return cause_facts(sources, Sanitizer({}));
}

constexpr unsigned long long kMiB = 1024 * 1024;

ResourceLimits address_space(unsigned long long bytes) {
  ResourceLimits limits;
  limits.address_space = bytes;
  return limits;
}

TEST(CauseWords, DriverMismatchNamesBothVersions) {
  Evidence e = cuda_answer(803);
  e.driver_library = "libcuda.so.550.54.15";
  e.kernel_module = "535.104.05";
  Cause c = cause_words(CauseId::DriverMismatch, facts_for(&e, ""));
  EXPECT_TRUE(has(c.what, "libcuda.so.550.54.15, version 550.54.15")) << c.what;
  EXPECT_TRUE(has(c.what, "version 535.104.05")) << c.what;
  e.kernel_module.reset();
  c = cause_words(CauseId::DriverMismatch, facts_for(&e, ""));
  EXPECT_TRUE(has(c.what, "/proc/driver/nvidia/version cannot be read")) << c.what;
}

TEST(CauseWords, NodesAndVariablesAreNamedNeverValued) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  e.device_nodes->nvidia_gpus_accessible = 0;
  e.visible_devices->at(0).second = "uuid_list";
  Facts f = facts_for(&e, "");
  EXPECT_EQ(f["closed_nodes"], "/dev/nvidiactl and /dev/nvidiaN");
  EXPECT_EQ(f["variables"], "CUDA_VISIBLE_DEVICES (uuid_list)");
  Cause c = cause_words(CauseId::NoDeviceNodes, f);
  EXPECT_TRUE(has(c.what, "no NVIDIA device node in this container (started without --gpus"))
      << c.what;
}

TEST(CauseWords, TheLoadersNamesBecomeFileNames) {
  Facts f = facts_for(nullptr,
                      "/lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
                      "/opt/secret/place/libc10.so)");
  Cause c = cause_words(CauseId::CxxRuntimeTooOld, f);
  EXPECT_EQ(c.what, "libtorch was found but libc10.so needs GLIBCXX_3.4.32 of the C++ runtime, "
                    "which this image's libstdc++.so.6 is too old to have.");
  EXPECT_TRUE(has(c.next_action, "newer libstdc++")) << c.next_action;
  EXPECT_FALSE(has(c.what, "/")) << c.what;
}

TEST(CauseWords, ADamagedFileIsTheLibraryNamedWhateverTheLoaderSaid) {
  Evidence e;
  e.library = LibraryCopy("libtorch_cpu.so.1.13.0", CopyState::Damaged);
  e.library->damage = "truncated";
  Facts f = facts_for(&e, "/opt/torch/lib/libc10_cuda.so: undefined symbol: _ZTIN3c105ErrorE");
  Cause c = cause_words(CauseId::CorruptLibrary, f);
  EXPECT_EQ(c.what, "libtorch was found but libtorch_cpu.so.1.13.0 is not a valid shared library: "
                    "a truncated download or an overwritten file.");
}

TEST(CauseWords, TheAddressSpaceLimitIsNamed) {
  Cause c = cause_words(CauseId::AddressSpaceLimit,
                        facts_for(nullptr, "x: failed to map segment from shared object",
                                  address_space(256 * kMiB)));
  EXPECT_EQ(c.what, "libtorch was found but could not be mapped into memory; the address-space "
                    "limit (ulimit -v) is 256 MiB.");
  EXPECT_TRUE(has(c.next_action, "raise it")) << c.next_action;
  c = cause_words(CauseId::AddressSpaceLimit, facts_for(nullptr, "x: failed to map segment"));
  EXPECT_EQ(c.what, "libtorch was found but could not be mapped into memory.");
}

TEST(CauseWords, NoKernelImageNamesTheCapability) {
  Evidence e = cuda_answer(209);
  Cause c = cause_words(CauseId::NoKernelImage, facts_for(&e, ""));
  EXPECT_TRUE(has(c.what, "compute capability 9.0")) << c.what;
  EXPECT_TRUE(has(c.next_action, "compute capability 9.0")) << c.next_action;
}

// The words of a worker's cause, with the limits of this run and its stage.
Cause worker_words(CauseId id, const ResourceLimits& limits, std::string_view stage = "import",
                   std::string_view how = "") {
  FactSources sources;
  sources.limits = &limits;
  sources.stage = stage;
  sources.how = how;
  return cause_words(id, cause_facts(sources, Sanitizer({})));
}

TEST(CauseWords, AProcessLimitNamesUlimitAndItsValue) {
  ResourceLimits limits;
  limits.processes = 1;
  Cause c = worker_words(CauseId::ProcessLimitAtStart, limits);
  EXPECT_EQ(c.what, "The worker process could not be started: a process limit is reached; the "
                    "process limit (ulimit -u) is 1.");
  EXPECT_TRUE(has(c.next_action, "Raise the process limit (ulimit -u")) << c.next_action;
  EXPECT_TRUE(has(c.next_action, "two processes")) << c.next_action;
  limits.cgroup_pids = 4;
  c = worker_words(CauseId::ProcessLimitAtStart, limits);
  EXPECT_TRUE(has(c.what, "and the pids limit of this cgroup is 4.")) << c.what;
}

TEST(CauseWords, WithoutAKnownLimitTheSentenceStillEnds) {
  for (CauseId id : {CauseId::ProcessLimitAtStart, CauseId::OutOfMemoryAtStart,
                     CauseId::OpenFileLimitAtStart, CauseId::KilledForMemory,
                     CauseId::KilledFromOutside,
                     CauseId::DiedForLackOfMemory, CauseId::ThreadStartFailed}) {
    Cause c = worker_words(id, ResourceLimits{});
    EXPECT_EQ(c.what.back(), '.') << c.what;
    EXPECT_FALSE(has(c.what, ";")) << c.what;
    EXPECT_FALSE(has(c.what, "unknown")) << c.what;
  }
}

TEST(CauseWords, LackOfMemoryAtStartNamesTheMemoryLimits) {
  ResourceLimits limits = address_space(64 * kMiB);
  limits.cgroup_memory = 32 * kMiB;
  Cause c = worker_words(CauseId::OutOfMemoryAtStart, limits);
  EXPECT_EQ(c.what, "The worker process could not be started for lack of memory; the "
                    "address-space limit (ulimit -v) is 64 MiB and the memory limit of this "
                    "cgroup is 32 MiB.");
  EXPECT_TRUE(has(c.next_action, "Raise the memory or address-space limit")) << c.next_action;
}

TEST(CauseWords, TooManyOpenFilesNamesTheOpenFileLimit) {
  ResourceLimits limits;
  limits.open_files = 8;
  Cause c = worker_words(CauseId::OpenFileLimitAtStart, limits);
  EXPECT_EQ(c.what, "The worker process could not be started: too many files are open; the "
                    "open-file limit (ulimit -n) is 8.");
  EXPECT_TRUE(has(c.next_action, "Raise the open-file limit (ulimit -n)")) << c.next_action;
}

TEST(CauseWords, AnOutsideSigkillPointsAtTheOutOfMemoryKiller) {
  ResourceLimits limits;
  limits.cgroup_memory = 16 * kMiB;
  Cause c = worker_words(CauseId::KilledFromOutside, limits, "import");
  EXPECT_EQ(c.what, "The worker process was killed by SIGKILL from outside the check during the "
                    "import stage, most often by the out-of-memory killer of a memory limit; the "
                    "memory limit of this cgroup is 16 MiB.");
  EXPECT_TRUE(has(c.next_action, "Raise the memory or address-space limit")) << c.next_action;
}

// The out-of-memory killer keeps the cgroup's limit, not the address-space one: the message names
// the one that binds, and the way out is more of it, or weights that need less.
TEST(CauseWords, TheOutOfMemoryKillerNamesTheCgroupsLimitAndWhatToRaise) {
  ResourceLimits limits = address_space(8192 * kMiB);
  limits.cgroup_memory = 16 * kMiB;
  limits.oom_kills_while_running = 1;
  Cause c = worker_words(CauseId::KilledForMemory, limits, "import");
  EXPECT_EQ(c.what, "The worker process was killed by the out-of-memory killer during the import "
                    "stage: its memory cgroup counted an out-of-memory kill while it ran; the "
                    "memory limit of this cgroup is 16 MiB.");
  for (const char* words : {"resources.limits.memory", "docker run --memory", "mmap=True",
                            "smaller dtype"}) {
    EXPECT_TRUE(has(c.next_action, words)) << c.next_action;
  }
}

TEST(CauseWords, LastWordsOfLackOfMemoryOrThreadsNameTheirLimits) {
  Cause c = worker_words(CauseId::DiedForLackOfMemory, address_space(500 * kMiB), "device");
  EXPECT_EQ(c.what, "The worker process died for lack of memory during the device stage; the "
                    "address-space limit (ulimit -v) is 500 MiB.");
  ResourceLimits limits;
  limits.processes = 3;
  c = worker_words(CauseId::ThreadStartFailed, limits, "compute");
  EXPECT_EQ(c.what, "The worker process died when it could not start a thread during the "
                    "compute stage; the process limit (ulimit -u) is 3.");
  EXPECT_TRUE(has(c.next_action, "Raise the process limit")) << c.next_action;
}

TEST(CauseWords, AnUnrecognisedEndSaysHowTheWorkerEnded) {
  Cause c = worker_words(CauseId::WorkerFailed, ResourceLimits{}, "compute",
                         "killed by signal SIGSEGV");
  EXPECT_EQ(c.what, "The worker process died or left no usable report during the compute stage "
                    "(killed by signal SIGSEGV).");
  c = worker_words(CauseId::WorkerFailed, ResourceLimits{}, "backend");
  EXPECT_EQ(c.what, "The worker process died or left no usable report during the backend stage.");
}

TEST(CauseWords, AnAllocationNamesTheAddressSpaceLimit) {
  Cause c = worker_words(CauseId::AllocationUnderAddressSpaceLimit, address_space(256 * kMiB));
  EXPECT_EQ(c.what, "An allocation failed; the address-space limit (ulimit -v) is 256 MiB, a "
                    "likely cause.");
  EXPECT_TRUE(has(c.next_action, "Raise the address-space limit (ulimit -v)")) << c.next_action;
}

TEST(CauseWords, StandardOutputSaysWhyItRefused) {
  FactSources sources;
  sources.write_error = "No space left on device";
  Cause c = cause_words(CauseId::StdoutWriteFailed, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(c.what, "The report could not be written whole to standard output (No space left on "
                    "device).");
  EXPECT_TRUE(has(c.next_action, "or use --output.")) << c.next_action;
}

TEST(CauseWords, TheNewCausesNameTheirFactsNeverAPath) {
  Evidence e = cuda_answer(999);
  e.device_cgroup = v1_cgroup_refusing_all();
  Cause words = cause_words(CauseId::DeviceCgroupDenied, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "(/dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN: EPERM)"))
      << words.what;
  EXPECT_TRUE(has(words.what, "device cgroup (its devices.list lacks them) no longer")) << words.what;
  EXPECT_TRUE(has(words.next_action, "Recreate the container")) << words.next_action;
  e.device_cgroup = DeviceCgroup{};
  e.device_cgroup->nvidia_gpus = 1;
  words = cause_words(CauseId::NoGpuGranted, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "(1 of 1 /dev/nvidiaN refused: EPERM)")) << words.what;
  DriverFiles stub;
  stub.libcuda_so_1 = true;
  stub.libcuda_file = "libcuda.so";
  stub.libcuda_folder = "stubs";
  e.driver_files = stub;
  words = cause_words(CauseId::StubDriver, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "(libcuda.so of a stubs folder; error 34)")) << words.what;
  e.driver_files = DriverFiles{};
  e.driver_files->libcuda_version_without_link = "550.54.15";
  words = cause_words(CauseId::DriverLinkMissing, facts_for(&e, ""));
  EXPECT_TRUE(has(words.next_action, "links to libcuda.so.550.54.15")) << words.next_action;
  e.rocm = RocmFacts{std::string("gfx1031"), std::string("version")};
  e.runtime->error = 98;
  words = cause_words(CauseId::RocmArchitectureMissing, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "architecture, gfx1031 (error 98); HSA_OVERRIDE_GFX_VERSION is set"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "PYTORCH_ROCM_ARCH=gfx1031")) << words.next_action;
  Evidence shadow;
  shadow.library = LibraryCopy("libnvJitLink.so.13", CopyState::Readable);
  shadow.library->folder = "cuda_toolkit";
  words = cause_words(CauseId::CudaLibraryShadowed,
                      facts_for(&shadow, "/w/lib/libcusparse.so.12: undefined symbol: "
                                         "__nvJitLinkAddData_13_2, version libnvJitLink.so.13"));
  EXPECT_EQ(words.what, "libtorch was found but libcusparse.so.12 needs a newer libnvJitLink.so.13 "
                        "than the one the loader takes first, from the image's CUDA toolkit folder "
                        "that LD_LIBRARY_PATH names: the image's own CUDA libraries shadow those "
                        "libtorch came with.");
}

// ---- the application layer ----

TorchFacts torch_215() { return TorchFacts{"2.15.0", "13.2", true}; }

// torchvision 0.24.1, made for torch 2.9.1 (CUDA 12), imported by torch 2.15.0 (CUDA 13.2).
ExtensionImport torchvision_for_other_torch() {
  ExtensionImport e;
  e.module = "torchvision";
  e.distribution = "torchvision";
  e.version = "0.24.1";
  e.requires_torch = "==2.9.1";
  e.torch = torch_215();
  e.torch_matches = false;
  e.cuda_majors = {"12"};
  e.failed = true;
  e.phase = "import";
  e.exception = "RuntimeError";
  e.words = "operator torchvision::nms does not exist";
  return e;
}

// An extension built with torch.utils.cpp_extension, as its import failed on a symbol.
ExtensionImport compiled_extension(const std::string& symbol) {
  ExtensionImport e;
  e.module = "kd_twice";
  e.distribution = "kd-twice";
  e.version = "1.0.0";
  e.requires_torch = "==2.15.0";
  e.torch = torch_215();
  e.torch_matches = true;
  e.failed = true;
  e.phase = "import";
  e.library = "kd_twice.cpython-311-x86_64-linux-gnu.so";
  e.exception = "ImportError";
  e.words = "/w/site/kd_twice.cpython-311-x86_64-linux-gnu.so: undefined symbol: " + symbol;
  e.undefined_symbol = symbol;
  return e;
}

TEST(RecogniseExtension, EachFactIsItsCause) {
  EXPECT_EQ(recognise_extension(torchvision_for_other_torch()), CauseId::ExtensionForOtherTorch);
  ExtensionImport abi = compiled_extension("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs");
  EXPECT_EQ(recognise_extension(abi), CauseId::ExtensionOtherCxxAbi);
  // The same symbol of the C++11 ABI's std::string, against a torch of the old ABI.
  ExtensionImport new_abi = compiled_extension(
      "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
  new_abi.torch.cxx11_abi = false;
  EXPECT_EQ(recognise_extension(new_abi), CauseId::ExtensionOtherCxxAbi);
  ExtensionImport other = compiled_extension("_ZNK3c1010TensorImpl15decref_pyobjectEv");
  other.torch = TorchFacts{"1.13.0a0+gitunknown", "", true};
  other.torch_matches = false;  // its requirement too: the symbol says more, and comes first
  EXPECT_EQ(recognise_extension(other), CauseId::ExtensionBuiltAgainstOtherTorch);
  // A symbol torch exports, or one not of torch's: no torch cause.
  other.symbol_in_torch = true;
  other.torch_matches = true;
  EXPECT_EQ(recognise_extension(other), CauseId::ExtensionImportError);
  ExtensionImport libpng = compiled_extension("png_create_read_struct");
  EXPECT_EQ(recognise_extension(libpng), CauseId::ExtensionImportError);

  ExtensionImport cuda = compiled_extension("");
  cuda.undefined_symbol.clear();
  cuda.words = "libcudart.so.12: cannot open shared object file: No such file or directory";
  cuda.cuda_majors = {"12"};
  EXPECT_EQ(recognise_extension(cuda), CauseId::ExtensionCudaMismatch);
  cuda.cuda_majors = {"13"};  // torch's own major: not the cause
  EXPECT_EQ(recognise_extension(cuda), CauseId::ExtensionImportError);

  ExtensionImport missing;
  missing.module = "torchvision";
  missing.torch = torch_215();
  missing.failed = true;
  missing.exception = "ModuleNotFoundError";
  missing.missing_module = "torchvision";
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionNotInstalled);
  missing.module = "torchvision.ops";  // a package above the module asked
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionNotInstalled);
  missing.missing_module = "PIL";
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionDependencyMissing);
  // A module named like the one asked, but not above it: a dependency.
  missing.missing_module = "torchvision_extra";
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionDependencyMissing);
}

TEST(CauseWords, AnExtensionMadeForAnotherTorchNamesBothAndThePipLine) {
  ExtensionImport e = torchvision_for_other_torch();
  FactSources sources;
  sources.extension = &e;
  Cause words = cause_words(CauseId::ExtensionForOtherTorch, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what,
            "torchvision (torchvision 0.24.1, CUDA 12) is made for torch==2.9.1, and this "
            "environment's torch is 2.15.0 (CUDA 13.2): its import failed (RuntimeError: operator "
            "torchvision::nms does not exist).");
  EXPECT_TRUE(has(words.next_action, "python -m pip install --upgrade \"torch==2.15.0\" torchvision"))
      << words.next_action;
  // A warning (listed, not imported): no failure to name; an extension newer than torch: no
  // --upgrade, pip chooses the older release.
  e.failed = false;
  e.requires_torch = ">=2.16";
  e.cuda_majors.clear();
  e.cuda_tag = "13.2";
  words = cause_words(CauseId::ExtensionForOtherTorch, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torchvision (torchvision 0.24.1, CUDA 13.2) is made for torch>=2.16, and "
                        "this environment's torch is 2.15.0 (CUDA 13.2).");
  EXPECT_TRUE(has(words.next_action, "python -m pip install \"torch==2.15.0\" torchvision"))
      << words.next_action;
}

TEST(CauseWords, AnUndefinedSymbolIsNamedDemangledNeverMangled) {
  ExtensionImport e = compiled_extension("_ZNK3c1010TensorImpl15decref_pyobjectEv");
  e.torch = TorchFacts{"1.13.0a0+gitunknown", "", true};
  FactSources sources;
  sources.extension = &e;
  Cause words = cause_words(CauseId::ExtensionBuiltAgainstOtherTorch,
                            cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what,
            "kd_twice (kd-twice 1.0.0) failed to load with torch 1.13.0a0+gitunknown: its library "
            "kd_twice.cpython-311-x86_64-linux-gnu.so calls c10::TensorImpl::decref_pyobject() "
            "const, which this torch does not have: it was built against another libtorch "
            "(torch==2.15.0, as its metadata requires).");
  EXPECT_FALSE(has(words.what + words.next_action, "_ZNK")) << words.what;
  ExtensionImport abi = compiled_extension("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs");
  sources.extension = &abi;
  words = cause_words(CauseId::ExtensionOtherCxxAbi, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "built with _GLIBCXX_USE_CXX11_ABI=0 and needs "
                              "c10::detail::torchCheckFail(char const*, char const*, unsigned int, "
                              "std::string const&), while this torch's libraries use "
                              "_GLIBCXX_USE_CXX11_ABI=1"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "-D_GLIBCXX_USE_CXX11_ABI=1")) << words.next_action;
  EXPECT_FALSE(has(words.what, "/w/site")) << words.what;
}

TEST(CauseWords, AMissingDependencyNamesItsDistributionAndWhoNeedsIt) {
  ExtensionImport e = torchvision_for_other_torch();
  e.torch_matches = true;
  e.exception = "ModuleNotFoundError";
  e.words = "No module named 'PIL'";
  e.missing_module = "PIL";
  e.needed_by = "torchvision.datasets._optical_flow";
  e.requires_missing = {"pillow"};
  FactSources sources;
  sources.extension = &e;
  Cause words = cause_words(CauseId::ExtensionDependencyMissing, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "torchvision.datasets._optical_flow needs the Python module PIL (of "
                              "the distribution pillow)"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "python -m pip install pillow")) << words.next_action;
  e.requires_missing = {"numpy", "pillow"};
  e.missing_module = "numpy";
  words = cause_words(CauseId::ExtensionDependencyMissing, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "needs the Python module numpy, which")) << words.what;
  EXPECT_TRUE(has(words.next_action, "python -m pip install numpy")) << words.next_action;
}

// ---- the application layer: weights files ----

WeightsFile weights(const std::string& format) {
  WeightsFile w;
  w.file = "model.safetensors";
  w.format = format;
  w.size = 134;
  w.mode = "0644";
  return w;
}

TEST(RecogniseWeights, EachFactIsItsCause) {
  WeightsFile missing = weights("");
  missing.error_name = "ENOENT";
  EXPECT_EQ(recognise_weights(missing), CauseId::WeightsNotFound);
  missing.error_name = "EACCES";
  EXPECT_EQ(recognise_weights(missing), CauseId::WeightsNotReadable);
  EXPECT_EQ(recognise_weights(weights("git_lfs_pointer")), CauseId::WeightsGitLfsPointer);
  WeightsFile cut = weights("safetensors");
  cut.cut = true;
  cut.promised_size = 160;
  EXPECT_EQ(recognise_weights(cut), CauseId::WeightsCutShort);
  for (const char* other : {"html", "text", "zip", "tar", "empty", "folder", "unknown"}) {
    EXPECT_EQ(recognise_weights(weights(other)), CauseId::WeightsNotAWeightsFile) << other;
  }
  for (const char* foreign : {"gguf", "numpy", "hdf5", "pickle"}) {
    EXPECT_EQ(recognise_weights(weights(foreign)), CauseId::WeightsFormatUnsupported) << foreign;
  }
  WeightsFile float8 = weights("safetensors");
  float8.unsupported_dtypes = {"F8_E4M3"};
  EXPECT_EQ(recognise_weights(float8), CauseId::WeightsFormatUnsupported);
  WeightsFile whole = weights("torch_zip");
  whole.exception = "UnpicklingError";
  whole.refused_globals = {"mypkg.Net"};
  EXPECT_EQ(recognise_weights(whole), CauseId::WeightsOnlyRefused);
  WeightsFile damaged = weights("safetensors");
  damaged.damage = "tensors overlap or leave a gap";
  EXPECT_EQ(recognise_weights(damaged), CauseId::WeightsArchiveDamaged);
  WeightsFile other = weights("torch_zip");
  other.exception = "RuntimeError";
  EXPECT_EQ(recognise_weights(other), CauseId::WeightsLoadError);
}

TEST(CauseWords, AWeightsFileIsNamedByItsBaseNameWithWhatWasFound) {
  WeightsFile lfs = weights("git_lfs_pointer");
  lfs.lfs_size = 1342177280;
  FactSources sources;
  sources.weights = &lfs;
  sources.torch_version = "2.15.0";
  Cause words = cause_words(CauseId::WeightsGitLfsPointer, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "The weights file model.safetensors is a Git LFS pointer (134 bytes of "
                        "text) standing for an object of 1,342,177,280 bytes, not the weights: its "
                        "repository was cloned without Git LFS.");
  EXPECT_TRUE(has(words.next_action, "git lfs pull")) << words.next_action;
  WeightsFile cut = weights("safetensors");
  cut.cut = true;
  cut.size = 1024;
  cut.promised_size = 2048;
  sources.weights = &cut;
  words = cause_words(CauseId::WeightsCutShort, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "its header promises 2,048 bytes and the file has 1,024")) << words.what;
  WeightsFile whole = weights("torch_zip");
  whole.refused_globals = {"mypkg.Net", "torch.nn.modules.linear.Linear"};
  sources.weights = &whole;
  words = cause_words(CauseId::WeightsOnlyRefused, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "needs the globals mypkg.Net and torch.nn.modules.linear.Linear"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "add_safe_globals")) << words.next_action;
  WeightsFile closed = weights("");
  closed.error_name = "EACCES";
  closed.mode = "0600";
  closed.owner_other = true;
  sources.weights = &closed;
  words = cause_words(CauseId::WeightsNotReadable, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "(its mode is 0600, and it belongs to another user)")) << words.what;
}

// ---- the backend's own libraries, torch.compile ----

BackendLibrary cudnn_found(const std::string& origin, bool refused) {
  BackendLibrary l;
  l.name = "cudnn";
  l.compiled = "9.26.0";
  l.runtime = refused ? "9.19.0" : "9.26.0";
  l.refused = refused;
  l.origin = origin;
  l.pinned = "nvidia-cudnn-cu13==9.26.0.51";
  return l;
}

TEST(RecogniseBackendLibrary, ARefusedCudnnByWhereItComesFrom) {
  EXPECT_EQ(recognise_backend_library(cudnn_found("system", false)), std::nullopt);
  EXPECT_EQ(recognise_backend_library(cudnn_found("system", true)), CauseId::CudnnFromSystem);
  EXPECT_EQ(recognise_backend_library(cudnn_found("cuda_toolkit", true)),
            CauseId::CudnnFromLibraryPath);
  EXPECT_EQ(recognise_backend_library(cudnn_found("ld_library_path", true)),
            CauseId::CudnnFromLibraryPath);
  EXPECT_EQ(recognise_backend_library(cudnn_found("other_wheel", true)), CauseId::CudnnOtherRelease);
  EXPECT_EQ(recognise_backend_library(cudnn_found("replaced_wheel", true)),
            CauseId::CudnnFilesReplaced);
  EXPECT_EQ(recognise_backend_library(cudnn_found("replaced_wheel", false)), std::nullopt);
  BackendLibrary nccl;
  nccl.name = "nccl";
  nccl.runtime = "2.30.7";
  nccl.pinned = "nvidia-nccl-cu13==2.30.7";
  EXPECT_EQ(recognise_backend_library(nccl), std::nullopt);
  nccl.runtime = "2.28.3";
  EXPECT_EQ(recognise_backend_library(nccl), CauseId::NcclNotPinned);
}

TEST(CauseWords, CudnnFilesReplacedNamesTheWheelAndWhatElseWritesThere) {
  BackendLibrary l = cudnn_found("replaced_wheel", true);
  l.distribution = "nvidia-cudnn-cu13";
  l.version = "9.26.0.51";
  FactSources sources;
  sources.library = &l;
  sources.torch_version = "2.15.0";
  Cause words = cause_words(CauseId::CudnnFilesReplaced, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torch 2.15.0 refuses the cuDNN it loaded: it was built with cuDNN 9.26.0 "
                        "and found 9.19.0, in the folder of the wheel nvidia-cudnn-cu13==9.26.0.51, "
                        "in a file that is not the one that wheel installed (its size is not the "
                        "one the wheel's RECORD gives): another cuDNN was written over that "
                        "wheel's files.");
  EXPECT_TRUE(has(words.next_action,
                  "python -m pip install --force-reinstall \"nvidia-cudnn-cu13==9.26.0.51\""))
      << words.next_action;
  EXPECT_TRUE(has(words.next_action, "pip show -f")) << words.next_action;
}

TEST(CauseWords, ARefusedCudnnNamesBothVersionsWhereItComesFromAndThePin) {
  BackendLibrary l = cudnn_found("system", true);
  FactSources sources;
  sources.library = &l;
  sources.torch_version = "2.15.0";
  Cause words = cause_words(CauseId::CudnnFromSystem, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torch 2.15.0 refuses the cuDNN it loaded: it was built with cuDNN 9.26.0 "
                        "and found 9.19.0, from the system's library path (ld.so.cache).");
  EXPECT_TRUE(has(words.next_action,
                  "python -m pip install --force-reinstall \"nvidia-cudnn-cu13==9.26.0.51\""))
      << words.next_action;
}

TEST(RecogniseCompile, ATorchWithoutTorchCompile) {
  // Debian 12's torch 1.13: AttributeError, and nothing of inductor's toolchain to judge; the
  // Python headers missing too must not make it a toolchain's cause.
  CompileFacts old;
  old.exception = "AttributeError";
  old.words = "module 'torch' has no attribute 'compile'";
  old.in_torch = false;
  old.python_headers = false;
  EXPECT_EQ(recognise_compile(old), CauseId::CompileNotInTorch);
  FactSources sources;
  sources.compile = &old;
  sources.torch_version = "1.13.0a0+git7c98e70";
  Cause words = cause_words(CauseId::CompileNotInTorch, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torch.compile was asked, and torch 1.13.0a0+git7c98e70 has none: "
                        "torch.compile came with torch 2.0 (module 'torch' has no attribute "
                        "'compile').");
  EXPECT_TRUE(has(words.next_action, "run the check without --compile")) << words.next_action;
  old.in_torch = true;
  EXPECT_EQ(recognise_compile(old), CauseId::CompilePythonHeadersMissing);
}

TEST(RecogniseCompile, WhatTheToolchainLacks) {
  CompileFacts cpu;
  cpu.exception = "InvalidCxxCompiler";
  cpu.cxx_found = false;
  EXPECT_EQ(recognise_compile(cpu), CauseId::CompileNoCxxCompiler);
  cpu.exception = "CppCompileError";
  cpu.cxx_found = true;
  cpu.python_headers = false;
  EXPECT_EQ(recognise_compile(cpu), CauseId::CompilePythonHeadersMissing);
  cpu.python_headers = true;
  EXPECT_EQ(recognise_compile(cpu), CauseId::CompileError);
  CompileFacts gpu;
  gpu.gpu = true;
  gpu.triton = "3.8.0";
  gpu.triton_pinned = "~=3.9.0";
  EXPECT_EQ(recognise_compile(gpu), CauseId::CompileTritonMismatch);
  gpu.triton = "3.9.1";
  gpu.cc_found = false;
  EXPECT_EQ(recognise_compile(gpu), CauseId::CompileNoCCompiler);
  gpu.cc_found = true;
  EXPECT_EQ(recognise_compile(gpu), CauseId::CompileError);
}

TEST(Demangled, NamesAndAbis) {
  EXPECT_EQ(demangled("_ZNK3c1010TensorImpl15decref_pyobjectEv"),
            "c10::TensorImpl::decref_pyobject() const");
  EXPECT_EQ(demangled("png_create_read_struct"), "png_create_read_struct");
  EXPECT_EQ(string_abi_of(demangled("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs")), "old");
  EXPECT_EQ(string_abi_of(demangled("_ZNK3c1010TensorImpl15decref_pyobjectEv")), "");
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
