#include "causes/causes.hpp"

#include "causes/device.hpp"
#include "causes/import.hpp"
#include "causes/compute.hpp"
#include "causes/application.hpp"
#include "causes/backend.hpp"
#include "causes/compile.hpp"
#include "causes/process.hpp"
#include "causes/output.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace kd {
namespace {

// The catalogue: every layer's table, in this order, joined into one; a cause's place is its
// CauseId's. Rows are tried in this order: the first that fits is the cause, so the
// evidence-backed rows come before the bare numbers, and each layer ends in its generic row (none
// for compute and an allocation: their failure stays the backend's error).
constexpr const CauseInfo* kLayers[] = {
    catalogue::kDeviceCauses,      catalogue::kImportCauses,  catalogue::kComputeCauses,
    catalogue::kApplicationCauses, catalogue::kBackendCauses, catalogue::kCompileCauses,
    catalogue::kProcessCauses,     catalogue::kOutputCauses};
constexpr size_t kLayerSizes[] = {
    std::size(catalogue::kDeviceCauses),      std::size(catalogue::kImportCauses),
    std::size(catalogue::kComputeCauses),     std::size(catalogue::kApplicationCauses),
    std::size(catalogue::kBackendCauses),     std::size(catalogue::kCompileCauses),
    std::size(catalogue::kProcessCauses),     std::size(catalogue::kOutputCauses)};

constexpr const CauseInfo& nth(size_t i) {
  size_t layer = 0;
  while (i >= kLayerSizes[layer]) i -= kLayerSizes[layer++];
  return kLayers[layer][i];
}

template <size_t... I>
constexpr std::array<CauseInfo, sizeof...(I)> joined(std::index_sequence<I...>) {
  return {nth(I)...};
}

constexpr size_t kCauseCount = [] {
  size_t count = 0;
  for (size_t size : kLayerSizes) count += size;
  return count;
}();
constexpr std::array<CauseInfo, kCauseCount> kCatalogue =
    joined(std::make_index_sequence<kCauseCount>());

// The layers' tables name every cause once, in the enumeration's order: a cause left out, or
// in another's place, does not compile.
constexpr bool tables_follow_the_enumeration() {
  if (kCauseCount != static_cast<size_t>(CauseId::StdoutWriteFailed) + 1) return false;
  for (size_t i = 0; i < kCauseCount; ++i) {
    if (static_cast<size_t>(kCatalogue[i].id) != i) return false;
  }
  return true;
}
static_assert(tables_follow_the_enumeration(), "one entry per cause, in the enumeration's order");

// The check's own failures: its name is its error.type.
#define FAILURE(name) Failure::name, #name

struct FailureRow {
  Failure id;
  std::string_view type;
};

constexpr FailureRow kFailures[] = {
    // the parent's
    {FAILURE(Timeout)},              // no verdict within the time limit
    {FAILURE(WatchFailed)},          // the worker could not be watched to its end
    {FAILURE(InconsistentVerdict)},  // a pass the worker's own facts do not support
    {FAILURE(OutputError)},          // the report not saved where --output asked
    {FAILURE(InternalError)},        // the parent's own defect
    // the worker's
    {FAILURE(GpuBackendAbsent)},     // a libtorch of neither CUDA nor HIP
    {FAILURE(DeviceIndexInvalid)},   // the index outside the visible devices
    {FAILURE(CheckMismatch)},        // the product or the gradient wrong
    {FAILURE(NotSynchronized)},      // results read without synchronizing the device
    {FAILURE(ProbeMissing)},         // the probe module missing or unreadable
    {FAILURE(ProbeIncompatible)},    // the probe module of another interface version
    {FAILURE(ProbeNeedsTorch)},      // a probe that loads libtorch, given no torch folder
    {FAILURE(WorkerException)},      // an exception the worker did not expect
};

#undef FAILURE

constexpr bool failures_follow_the_enumeration() {
  size_t i = 0;
  for (const FailureRow& row : kFailures) {
    if (static_cast<size_t>(row.id) != i++) return false;
  }
  return i == static_cast<size_t>(Failure::WorkerException) + 1;
}
static_assert(failures_follow_the_enumeration(), "one row per failure, in the enumeration's order");

bool has(std::string_view text, std::string_view word) {
  return !word.empty() && text.find(word) != std::string_view::npos;
}

bool names_number(const Recogniser& how, int number) {
  const auto& n = how.numbers;
  return number != 0 && std::find(n.begin(), n.end(), number) != n.end();
}

bool says_one_of(const Recogniser& how, std::string_view text) {
  bool one = std::any_of(how.words.begin(), how.words.end(),
                         [&](std::string_view w) { return has(text, w); });
  return one && (how.also_word.empty() || has(text, how.also_word));
}

bool api_fits(Api api, const std::string& runtime) {
  return api == Api::Both || (api == Api::Cuda && runtime == "cuda") ||
         (api == Api::Hip && runtime == "hip");
}

// The sign of a row that has one, asked of what was seen.
bool shows(const Recogniser& how, const Seen& seen) {
  return how.sign != nullptr && how.sign(seen);
}

const Evidence kNoEvidence;
const std::optional<LibraryCopy> kNoCopy;

// The first row met `where` that is generic or that `fits`.
template <typename Fits>
std::optional<CauseId> first_row(unsigned where, Fits fits) {
  for (const CauseInfo& row : kCatalogue) {
    if ((row.where & where) != 0 && (row.how.generic() || fits(row.how))) return row.id;
  }
  return std::nullopt;
}

// The device or compute row for a runtime's answer, or for libtorch's words
// where no runtime could be asked.
std::optional<CauseId> first_runtime_row(const Evidence& e, std::string_view words,
                                         unsigned where) {
  const Seen seen{e, words, kNoCopy};
  if (e.runtime && e.runtime->error != 0) {
    return first_row(where, [&](const Recogniser& how) {
      return names_number(how, e.runtime->error) && api_fits(how.api, e.runtime->api) &&
             (how.sign == nullptr || how.sign(seen));
    });
  }
  return first_row(where, [&](const Recogniser& how) { return says_one_of(how, words); });
}

// The loader row of a sign, where it holds.
std::optional<CauseId> loader_row_of(Sign sign, const Seen& seen) {
  for (const CauseInfo& row : kCatalogue) {
    if ((row.where & kLoader) != 0 && row.how.sign == sign && sign(seen)) return row.id;
  }
  return std::nullopt;
}

}  // namespace

const CauseInfo& cause_info(CauseId id) { return kCatalogue[static_cast<size_t>(id)]; }

std::vector<CauseId> all_causes() {
  std::vector<CauseId> all;
  for (const CauseInfo& row : kCatalogue) all.push_back(row.id);
  return all;
}

std::optional<CauseId> cause_from_type(std::string_view type) {
  for (const CauseInfo& row : kCatalogue) {
    if (row.type == type) return row.id;
  }
  return std::nullopt;
}

std::string failure_type(Failure failure) {
  return std::string(kFailures[static_cast<size_t>(failure)].type);
}

std::vector<std::string_view> failure_types() {
  std::vector<std::string_view> all;
  for (const FailureRow& row : kFailures) all.push_back(row.type);
  return all;
}

std::optional<CauseId> recognise_device(const Evidence& evidence, std::string_view library_words,
                                        unsigned where) {
  return first_runtime_row(evidence, library_words, where);
}

std::optional<CauseId> recognise_compute(const Evidence& evidence) {
  if (!evidence.runtime || evidence.runtime->error == 0) return std::nullopt;
  return first_runtime_row(evidence, "", kCompute);
}

CauseId recognise_loader(std::string_view text, const std::optional<LibraryCopy>& copy) {
  const Seen seen{kNoEvidence, text, copy};
  return first_row(kLoader, [&](const Recogniser& how) {
           return says_one_of(how, text) || shows(how, seen);
         }).value_or(CauseId::LoaderError);
}

std::optional<CauseId> recognise_shadowing(std::string_view loader_words, const LibraryCopy& copy) {
  const std::optional<LibraryCopy> seen_copy = copy;
  return loader_row_of(catalogue::copy_shadowing, Seen{kNoEvidence, loader_words, seen_copy});
}

std::optional<CauseId> recognise_damaged_library(const LibraryCopy& copy) {
  const std::optional<LibraryCopy> seen_copy = copy;
  return loader_row_of(catalogue::copy_damaged, Seen{kNoEvidence, "", seen_copy});
}

CauseId recognise_worker_start(int error_number) {
  return first_row(kWorkerStart, [&](const Recogniser& how) {
           return names_number(how, error_number);
         }).value_or(CauseId::SpawnFailed);
}

CauseId recognise_worker_end(const WaitStatus& status, std::string_view last_words,
                             const ResourceLimits& limits) {
  const Seen seen{kNoEvidence, last_words, kNoCopy, &status, &limits};
  return first_row(kWorkerEnd, [&](const Recogniser& how) {
           return says_one_of(how, last_words) || shows(how, seen);
         }).value_or(CauseId::WorkerFailed);
}

CauseId recognise_python_import(const PythonImport& facts) {
  const Seen seen{kNoEvidence, "", kNoCopy, nullptr, nullptr, &facts};
  return first_row(kPythonImport, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::TorchImportError);
}

std::optional<CauseId> recognise_backend_library(const BackendLibrary& library) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.library = &library;
  for (const CauseInfo& row : kCatalogue) {
    if ((row.where & kBackendLibraries) != 0 && shows(row.how, seen)) return row.id;
  }
  return std::nullopt;
}

CauseId recognise_compile(const CompileFacts& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.compile = &facts;
  return first_row(kCompile, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::CompileError);
}

CauseId recognise_weights(const WeightsFile& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.weights = &facts;
  return first_row(kWeights, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::WeightsLoadError);
}

CauseId recognise_weights_memory(const WeightsMemory& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.memory = &facts;
  return first_row(kWeightsMemory, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::WeightsExceedMemory);
}

CauseId recognise_precision(const PrecisionRun& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.precision = &facts;
  return first_row(kPrecision, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::PrecisionError);
}

CauseId recognise_extension(const ExtensionImport& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.extension = &facts;
  return first_row(kApplication, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::ExtensionImportError);
}

std::optional<CauseId> recognise_allocation(const ResourceLimits& limits) {
  const Seen seen{kNoEvidence, "", kNoCopy, nullptr, &limits};
  return first_row(kAllocation, [&](const Recogniser& how) { return shows(how, seen); });
}

std::string stage_text(CauseId id) {
  const CauseInfo& row = cause_info(id);
  if ((row.where & kWorkerEnd) != 0) return "the last stage reached";
  if ((row.where & kAllocation) != 0) {
    return std::string(stage_name(Stage::Device)) + " or " +
           std::string(stage_name(Stage::Compute));
  }
  return std::string(stage_name(row.stage));
}

std::string errno_name(int number) {
  switch (number) {
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    default: return std::to_string(number);
  }
}

std::string fill(std::string_view text, const Facts& facts) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('{', i);
    size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, open - i));
    auto it = facts.find(std::string(text.substr(open + 1, close - open - 1)));
    out.append(it != facts.end() ? it->second : "unknown");
    i = close + 1;
  }
  return out;
}

Cause cause_words(CauseId id, const Facts& facts) {
  const CauseInfo& row = cause_info(id);
  return Cause{fill(row.what, facts), fill(row.next_action, facts)};
}

}  // namespace kd

#undef CAUSE
