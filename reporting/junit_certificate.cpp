// What a run certified: the facts learned from the check's own reports, and the plain-words
// certificate.
#include "junit_certificate.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <system_error>

#include "junit_text.hpp"
#include "util/files.hpp"

namespace kd::junit {
namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& path, bool& ok) {
  const auto text = kd::read_file(path.string(), std::numeric_limits<std::size_t>::max());
  ok = text.has_value();
  return text.value_or(std::string());
}

std::string join(const std::set<std::string>& values, const std::string& otherwise) {
  if (values.empty()) return otherwise;
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

std::string layer_result(const Counts& c) {
  std::string out = std::to_string(c.passed) + " passed";
  if (c.failures) out += ", " + std::to_string(c.failures) + " failed";
  if (c.errors) out += ", " + plural(c.errors, "error", "errors");
  if (c.skipped) out += ", " + std::to_string(c.skipped) + " skipped";
  return out;
}

// The check's report files of a run, in name order.
std::vector<std::filesystem::path> report_files(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("case reports folder " + dir.string() + " does not exist");
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

// What the real reports of a run say of the machine, gathered before they are joined.
struct Facts {
  std::set<std::string> versions, torch, backends, cuda, hip, models, capabilities, drivers,
      host_statuses, probes, gradient_sources;
  std::optional<long long> visible;
  std::size_t per_gpu_passes = 0;

  // One report made with the real probe.
  void add(const json& doc, const std::string& file_name) {
    probes.insert(text_at(doc, "/tool/probe"));
    const json* verified = field_at(doc, "/execution/gradient_verified");
    if (std::string g = text_at(doc, "/execution/gradient_source");
        verified && *verified == true && !g.empty()) {
      gradient_sources.insert(g);
    }
    if (std::string v = text_at(doc, "/pytorch/version"); !v.empty()) {
      torch.insert(v);
      if (std::string b = text_at(doc, "/pytorch/backend"); !b.empty()) backends.insert(b);
      std::string cu = text_at(doc, "/pytorch/cuda");
      cuda.insert(cu.empty() ? "none" : cu);
      std::string hi = text_at(doc, "/pytorch/hip");
      hip.insert(hi.empty() ? "none" : hi);
    }
    if (text_at(doc, "/requested/device") == "cuda") add_gpu(doc, file_name);
    const json* host = field_at(doc, "/host");
    if (host && host->is_object()) {
      std::string status = text_at(doc, "/host/status");
      host_statuses.insert(status.empty() ? "unknown" : status);
      if (std::string d = text_at(doc, "/host/driver_version"); status == "ok" && !d.empty())
        drivers.insert(d);
    }
  }

  void add_gpu(const json& doc, const std::string& file_name) {
    const json* n = field_at(doc, "/pytorch/visible_device_count");
    if (n && n->is_number_integer()) visible = std::max(visible.value_or(0), n->get<long long>());
    if (text_at(doc, "/code") != "GPU_CHECK_PASSED") return;
    if (std::string m = text_at(doc, "/execution/device_name"); !m.empty()) models.insert(m);
    if (std::string k = text_at(doc, "/execution/capability"); !k.empty()) capabilities.insert(k);
    // The suite's real-GPU cases pass once per GPU, each seeing only its own GPU when
    // CTest hands them out (a resource spec).
    if (file_name.find("gpu_pass_index_") != std::string::npos) ++per_gpu_passes;
  }

  void fill(Certificate& c) const {
    c.check_version = join(versions, "unknown");
    c.libtorch_version = join(torch, "unknown");
    c.backend = join(backends, "unknown");
    c.cuda_version = join(cuda, "unknown");
    c.hip_version = join(hip, "unknown");
    c.probe = join(probes, "unknown");
    c.gradient_source = join(gradient_sources, "none verified");
    c.gpu_model = join(models, "none");
    c.gpu_capability = join(capabilities, "none");
    if (visible || per_gpu_passes > 0)
      c.gpu_count = std::to_string(std::max<long long>(visible.value_or(0),
                                                       static_cast<long long>(per_gpu_passes)));
    if (!drivers.empty()) {
      c.driver_version = join(drivers, "");
    } else if (!host_statuses.empty()) {
      c.driver_version = "not available (host check: " + join(host_statuses, "") + ")";
    }
  }
};

}  // namespace

Certificate read_case_reports(const std::filesystem::path& dir,
                              std::vector<std::string>& warnings) {
  Certificate c;
  Facts facts;
  for (const std::filesystem::path& file : report_files(dir)) {
    bool ok = false;
    const std::string text = read_text(file, ok);
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!ok || doc.is_discarded() || !doc.is_object() ||
        text_at(doc, "/tool/name") != "kernodeck-diagnostic") {
      warnings.push_back("ignored " + file.filename().string() +
                         ": not a report of kernodeck-diagnostic");
      continue;
    }
    ++c.reports;
    if (std::string v = text_at(doc, "/tool/version"); !v.empty()) facts.versions.insert(v);
    // The fault-injecting probe's facts are simulations, never the machine's.
    if (!made_by_real_probe(doc)) continue;
    ++c.real_reports;
    facts.add(doc, file.filename().string());
  }
  facts.fill(c);
  return c;
}

std::vector<std::pair<std::string, std::string>> certificate_properties(
    const Certificate& c, const std::string& variant) {
  std::vector<std::pair<std::string, std::string>> p;
  if (!variant.empty()) p.emplace_back(kVariantProperty, variant);
  p.emplace_back("kernodeck.check.version", c.check_version);
  p.emplace_back("kernodeck.check.commit", c.commit);
  p.emplace_back("kernodeck.libtorch.version", c.libtorch_version);
  p.emplace_back("kernodeck.backend", c.backend);
  p.emplace_back("kernodeck.cuda.version", c.cuda_version);
  p.emplace_back("kernodeck.hip.version", c.hip_version);
  p.emplace_back("kernodeck.probe", c.probe);
  p.emplace_back("kernodeck.gradient.source", c.gradient_source);
  p.emplace_back("kernodeck.gpu.model", c.gpu_model);
  p.emplace_back("kernodeck.gpu.capability", c.gpu_capability);
  p.emplace_back("kernodeck.gpu.count", c.gpu_count);
  p.emplace_back("kernodeck.driver.version", c.driver_version);
  p.emplace_back("kernodeck.gpu.declared", c.gpu_declared);
  p.emplace_back("kernodeck.case_reports",
                 std::to_string(c.reports) + " (" + std::to_string(c.real_reports) +
                     " by the real probe)");
  return p;
}

std::string certificate_text(const Report& report, const Counts& counts) {
  const Certificate c = report.certificate.value_or(Certificate{});
  const bool certified = counts.failures == 0 && counts.errors == 0;
  std::string out = report.title + " " + c.check_version + " (commit " + c.commit + ")";
  if (!report.variant.empty()) out += ", variant " + report.variant;
  out += certified ? ": CERTIFIED, no case failed.\n"
                   : ": NOT CERTIFIED, " + plural(counts.failures, "failure", "failures") +
                         " and " + plural(counts.errors, "error", "errors") + ".\n";
  out += "Certified against libtorch " + c.libtorch_version + " (backend " + c.backend +
         ", CUDA " + c.cuda_version + ", HIP " + c.hip_version + ") through the probe " +
         c.probe + "; the gradient verified by " + c.gradient_source + ".\n";
  out += "GPU: " + c.gpu_model + " (count " + c.gpu_count + ", capability " + c.gpu_capability +
         "), driver " + c.driver_version + "; the runner declared a GPU: " + c.gpu_declared +
         ".\n";
  out += "Result: " + plural(counts.tests, "case", "cases") + ", " +
         std::to_string(counts.passed) + " passed, " + std::to_string(counts.failures) +
         " failed, " + plural(counts.errors, "error", "errors") + ", " +
         std::to_string(counts.skipped) + " skipped (a skip is a promise this runner cannot "
         "show; its reason says why).\n";
  out += "Per layer:";
  bool first = true;
  for (const ReportSuite& suite : report.suites) {
    if (suite.name == kCertificateLayer) continue;
    Counts layer;
    for (const ReportCase& rc : suite.cases) layer.add(rc.verdict);
    out += std::string(first ? " " : "; ") + suite.name + " " + layer_result(layer);
    first = false;
  }
  out += first ? " none.\n" : ".\n";
  out += "Facts about the machine come from the check's own reports made by the real probe (" +
         std::to_string(c.real_reports) + " of " + std::to_string(c.reports) + ").\n";
  return out;
}

void add_certificate_case(Report& report) {
  if (!report.certificate) return;
  const Counts counts = report.counts();
  ReportCase rc;
  rc.classname = kCertificateLayer;
  rc.name = kCertificateLayer;
  const std::string text = certificate_text(report, counts);
  if (counts.failures == 0 && counts.errors == 0) {
    rc.verdict = Verdict::Passed;
    rc.system_out = text;
  } else {
    rc.verdict = Verdict::Failure;
    rc.type = "certificate";
    rc.message = "not certified: " + plural(counts.failures, "failure", "failures") + " and " +
                 plural(counts.errors, "error", "errors");
    rc.body = rc.message + "\n" + text;
  }
  report.suites.insert(report.suites.begin(), ReportSuite{kCertificateLayer, {std::move(rc)}});
}

}  // namespace kd::junit
