#include "certificate.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "junit_text.hpp"
#include "util/text.hpp"

namespace kd::junit {
namespace {

std::string join(const std::set<std::string>& values, const std::string& otherwise) {
  return values.empty() ? otherwise : kd::joined({values.begin(), values.end()}, ", ");
}

std::string layer_result(const Counts& c) {
  std::string out = std::to_string(c.passed) + " passed";
  if (c.failures) out += ", " + std::to_string(c.failures) + " failed";
  if (c.errors) out += ", " + plural(c.errors, "error", "errors");
  if (c.skipped) out += ", " + std::to_string(c.skipped) + " skipped";
  return out;
}

// What the real reports of a run say of the machine, gathered before they are joined.
struct Facts {
  std::set<std::string> versions, torch, backends, cuda, hip, models, capabilities, drivers,
      host_statuses, probes, gradient_sources;
  std::optional<long long> visible;
  std::size_t per_gpu_passes = 0;

  // One report made with the real probe.
  void add(const CheckReport& r, const std::string& name) {
    probes.insert(r.probe);
    if (r.gradient_verified && !r.gradient_source.empty())
      gradient_sources.insert(r.gradient_source);
    if (!r.torch_version.empty()) {
      torch.insert(r.torch_version);
      if (!r.backend.empty()) backends.insert(r.backend);
      cuda.insert(r.cuda.empty() ? "none" : r.cuda);
      hip.insert(r.hip.empty() ? "none" : r.hip);
    }
    if (r.device == "cuda") add_gpu(r, name);
    if (r.has_host) {
      host_statuses.insert(r.host_status.empty() ? "unknown" : r.host_status);
      if (r.host_status == "ok" && !r.driver_version.empty()) drivers.insert(r.driver_version);
    }
  }

  void add_gpu(const CheckReport& r, const std::string& name) {
    if (r.visible_devices) visible = std::max(visible.value_or(0), *r.visible_devices);
    if (r.code != "GPU_CHECK_PASSED") return;
    if (!r.device_name.empty()) models.insert(r.device_name);
    if (!r.capability.empty()) capabilities.insert(r.capability);
    // The suite's real-GPU cases pass once per GPU, each seeing only its own GPU when
    // CTest hands them out (a resource spec).
    if (name.find("gpu_pass_index_") != std::string::npos) ++per_gpu_passes;
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

Certificate certificate_of(const std::map<std::string, CheckReport>& reports,
                           std::vector<std::string>& warnings) {
  Certificate c;
  Facts facts;
  for (const auto& [name, r] : reports) {
    if (!r.read || !r.object || !r.ours) {
      warnings.push_back("ignored " + name + ".json: not a report of kernodeck-diagnostic");
      continue;
    }
    ++c.reports;
    if (!r.tool_version.empty()) facts.versions.insert(r.tool_version);
    // The fault-injecting probe's facts are simulations, never the machine's.
    if (!r.real_probe()) continue;
    ++c.real_reports;
    facts.add(r, name);
  }
  facts.fill(c);
  return c;
}

namespace {

// The certificate's facts as (name, value) pairs, in the order dashboards show them.
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

// The certificate in plain words, a few lines; `counts` are those of the layers' cases.
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

// The certificate's suite, first (see Report::certificate).
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

}  // namespace

void seal(Report& report) {
  add_certificate_case(report);
  for (ReportSuite& suite : report.suites) {
    suite.variant = report.variant;
    suite.properties.clear();
    if (report.certificate) {
      suite.properties = certificate_properties(*report.certificate, report.variant);
    } else if (!report.variant.empty()) {
      suite.properties.emplace_back(kVariantProperty, report.variant);
    }
    for (auto& [name, value] : suite.properties) value = xml_safe(one_line(value));
    suite.name = xml_safe(one_line(suite.name));
    for (ReportCase& c : suite.cases) {
      for (std::string* attribute : {&c.classname, &c.name, &c.type, &c.message})
        *attribute = xml_safe(one_line(*attribute));
      for (std::string* text : {&c.body, &c.system_out, &c.promise, &c.declared})
        *text = xml_safe(*text);
      for (std::string& warning : c.warnings) warning = xml_safe(one_line(warning));
    }
  }
  report.title = xml_safe(one_line(report.title));
}

}  // namespace kd::junit
