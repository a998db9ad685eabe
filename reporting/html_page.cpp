#include "html_page.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "certificate.hpp"
#include "junit_text.hpp"
#include "summary.hpp"

namespace kd::junit {

// page.css, built in (kd_embed, reporting/CMakeLists.txt).
std::string_view page_style();

namespace {

// A warning of a case's report, and the catalogue's cause its type names (nullptr for none).
struct HtmlWarning {
  const ReportWarning* warning = nullptr;
  const CauseRow* row = nullptr;
};

struct HtmlCase {
  const ReportCase* rc = nullptr;
  std::string variant, verdict;
  std::string anchor;                      // the id of its element, "case-<n>"
  const CheckReport* json = nullptr;       // the check's report of it, when there is one
  std::optional<MetCause> cause = {};      // the catalogue's cause that report names
  std::vector<HtmlWarning> warnings = {};  // that report's warnings, in its order
};

struct LayerState {
  std::size_t passed = 0, failed = 0, skipped = 0;
  std::string state() const {
    if (failed > 0) return "failed";
    if (passed == 0 && skipped == 0) return "not run";
    if (passed == 0) return "skipped";
    if (skipped > 0) return "passed, with skips";
    return "passed";
  }
  std::string css() const {
    if (failed > 0) return "failed";
    if (passed == 0) return "skipped";
    return "passed";
  }
};

std::string count_text(const LayerState& s) {
  return std::to_string(s.passed) + " passed, " + std::to_string(s.failed) + " failed, " +
         std::to_string(s.skipped) + " skipped";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// What the page shows, read from the report.
struct HtmlReport {
  std::string title;
  Counts counts;
  std::vector<std::string> variants;                               // in report order
  std::map<std::string, std::map<std::string, std::string>> facts;  // property -> variant -> value
  std::vector<std::string> fact_order;
  std::vector<std::pair<std::string, std::string>> certificates;  // variant, plain words
  std::map<std::string, std::vector<HtmlCase>> by_layer;
  std::map<std::string, LayerState> layers;
};

// A suite's variant, and its other properties as facts of that variant.
void add_suite_facts(const ReportSuite& suite, HtmlReport& r) {
  if (std::find(r.variants.begin(), r.variants.end(), suite.variant) == r.variants.end())
    r.variants.push_back(suite.variant);
  for (const auto& [name, value] : suite.properties) {
    if (name == kVariantProperty) continue;
    if (!r.facts.count(name)) r.fact_order.push_back(name);
    r.facts[name].emplace(suite.variant, value);
  }
}

// Counts a case, and files it under its layer, or as a certificate's statement.
void add_case(const ReportCase& rc, const std::string& variant, HtmlReport& r) {
  r.counts.add(rc.verdict);
  if (rc.classname == kCertificateLayer) {
    r.certificates.emplace_back(variant, certificate_words(rc));
    return;
  }
  HtmlCase c{&rc, variant, verdict_word(rc.verdict), "case-" + std::to_string(r.counts.tests)};
  LayerState& state = r.layers[rc.classname];
  if (c.verdict == "passed") ++state.passed;
  else if (c.verdict == "skipped") ++state.skipped;
  else ++state.failed;
  r.by_layer[rc.classname].push_back(std::move(c));
}

HtmlReport html_report(const Report& report) {
  HtmlReport r;
  r.title = report.title;
  for (const ReportSuite& s : report.suites) {
    add_suite_facts(s, r);
    for (const ReportCase& c : s.cases) add_case(c, s.variant, r);
  }
  return r;
}

// How many warnings the cases' reports hold, and in how many cases: a line under the counts,
// since a warning changes no count.
void write_warning_count(std::ostringstream& h, const HtmlReport& r) {
  std::size_t warnings = 0, cases = 0;
  for (const auto& [layer, list] : r.by_layer) {
    for (const HtmlCase& c : list) {
      warnings += c.warnings.size();
      if (!c.warnings.empty()) ++cases;
    }
  }
  h << "<p id=\"warnings\" data-warnings=\"" << warnings << "\">";
  if (warnings == 0) {
    h << "No warning in the cases' reports.</p>\n";
    return;
  }
  h << plural(warnings, "warning", "warnings") << " in the reports of "
    << plural(cases, "case", "cases") << " (marked below): what the check noticed without "
    << "failing for it, which changes no verdict and no exit code.</p>\n";
}

void write_head(std::ostringstream& h, const HtmlReport& r) {
  const Counts& counts = r.counts;
  const bool certified = counts.failures == 0 && counts.errors == 0;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<meta name=\"color-scheme\" content=\"light dark\">\n"
    << "<title>" << html_escape(r.title) << ": certificate</title>\n<style>\n" << page_style()
    << "</style>\n</head>\n<body>\n";
  h << "<main id=\"certificate\" data-tests=\"" << counts.tests << "\" data-passed=\""
    << counts.passed << "\" data-failed=\"" << counts.failures << "\" data-errors=\""
    << counts.errors << "\" data-skipped=\"" << counts.skipped << "\" data-certified=\""
    << (certified ? "yes" : "no") << "\">\n";
  h << "<h1>" << html_escape(r.title) << ": certificate</h1>\n";
  h << "<p class=\"verdict " << (certified ? "passed" : "failed") << "\" id=\"verdict\">"
    << (certified ? "CERTIFIED: no case failed." : "NOT CERTIFIED: a case failed or erred.")
    << "</p>\n";
  h << "<p id=\"counts\">" << counts.tests << " tests in the report (the certificate's own "
    << "included): " << counts.passed << " passed, "
    << counts.failures << " failed, " << counts.errors << " errors, " << counts.skipped
    << " skipped.</p>\n";
  write_warning_count(h, r);
}

// The environment: one column per variant; then each certificate's statement.
void write_environment(std::ostringstream& h, const HtmlReport& r) {
  h << "<h2>Environment</h2>\n";
  if (r.fact_order.empty()) {
    h << "<p id=\"environment\">No facts in this report (kernodeck-junit without --cases).</p>\n";
  } else {
    h << "<table id=\"environment\">\n<tr><th>fact</th>";
    for (const std::string& v : r.variants)
      h << "<th>" << html_escape(v.empty() ? std::string("value") : v) << "</th>";
    h << "</tr>\n";
    for (const std::string& name : r.fact_order) {
      h << "<tr data-property=\"" << html_escape(name) << "\"><th>" << html_escape(name) << "</th>";
      for (const std::string& v : r.variants) {
        const auto& values = r.facts.at(name);
        const auto it = values.find(v);
        h << "<td data-variant=\"" << html_escape(v) << "\">"
          << html_escape(it == values.end() ? std::string("-") : it->second) << "</td>";
      }
      h << "</tr>\n";
    }
    h << "</table>\n";
  }
  for (const auto& [variant, text] : r.certificates) {
    h << "<pre class=\"statement\" data-variant=\"" << html_escape(variant) << "\">"
      << html_escape(text) << "</pre>\n";
  }
}

// A table of the report's view, or what it says without rows.
void write_view_table(std::ostringstream& h, const ViewTable& t) {
  h << "<h2>" << html_escape(t.title) << "</h2>\n";
  if (t.rows.empty()) {
    h << "<p id=\"" << t.id << "\">" << html_escape(t.none) << "</p>\n";
    return;
  }
  h << "<table id=\"" << t.id << "\">\n<tr>";
  for (const std::string& header : t.headers) h << "<th>" << html_escape(header) << "</th>";
  h << "</tr>\n";
  for (const ViewRow& row : t.rows) {
    h << "<tr";
    for (const auto& [name, value] : row.data)
      h << " data-" << name << "=\"" << html_escape(value) << "\"";
    h << ">";
    for (const ViewCell& cell : row.cells) {
      h << "<td" << (cell.css.empty() ? "" : " class=\"" + cell.css + "\"") << ">"
        << html_escape(cell.text) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n";
}

// The ladder: application at the top, import at the bottom; the view's own, or the cases' of
// each layer.
void write_ladder(std::ostringstream& h, const HtmlReport& r, const std::optional<ReportView>& view) {
  const bool own = view && !view->ladder.empty();
  std::vector<LadderStep> steps;
  if (own) {
    steps = view->ladder;
  } else {
    for (const char* layer : kLayers) {
      const LayerState s = r.layers.count(layer) ? r.layers.at(layer) : LayerState{};
      steps.push_back({layer, s.state(), s.css(), count_text(s)});
    }
  }
  h << "<h2>The layers</h2>\n<ol class=\"ladder\" id=\"ladder\"";
  if (own) h << " data-counts=\"" << html_escape(view->counts) << "\"";
  h << ">\n";
  for (const LadderStep& s : steps) {
    h << "<li class=\"" << s.css << "\" data-layer=\"" << s.layer << "\" data-state=\""
      << html_escape(s.state) << "\"><strong>" << s.layer << "</strong>: " << html_escape(s.state)
      << " (" << s.counted << ")</li>\n";
  }
  h << "</ol>\n";
}

bool failed(const HtmlCase& c) { return c.verdict == "failed" || c.verdict == "error"; }

// The cause a case's report names: for a failed or erred case, prominent, with its next action
// and the report's own words; for any other, one line.
void write_case_cause(std::ostringstream& h, const HtmlCase& c) {
  if (!c.cause) return;
  const CauseRow& row = *c.cause->row;
  const std::string link = "<a href=\"#cause-" + html_escape(row.key) + "\">" +
                           html_escape(row.title) + "</a> (<code>" +
                           html_escape(row.error_type) + "</code>)";
  if (!failed(c)) {
    h << "<div class=\"cause-met\" data-cause=\"" << html_escape(row.key)
      << "\">Cause met: " << link << "</div>\n";
    return;
  }
  h << "<div class=\"cause\" data-cause=\"" << html_escape(row.key) << "\">\n"
    << "<div class=\"cause-title\">Cause: " << link << ", " << html_escape(row.stage)
    << " layer, " << html_escape(row.code) << " (" << row.exit_code << ")</div>\n"
    << "<div class=\"next-action\">Next action: " << html_escape(row.next_action) << "</div>\n";
  if (!c.cause->message.empty())
    h << "<div class=\"said\">The check said: " << html_escape(c.cause->message) << "</div>\n";
  h << "</div>\n";
}

// Each warning of the case's report, whatever its verdict: where it was noticed, its type (a
// link to the catalogue's row when it names a cause) and the check's words.
void write_case_warnings(std::ostringstream& h, const HtmlCase& c) {
  if (c.warnings.empty()) return;
  h << "<div class=\"warnings\" data-warnings=\"" << c.warnings.size() << "\">\n";
  for (const HtmlWarning& hw : c.warnings) {
    const ReportWarning& w = *hw.warning;
    h << "<div class=\"warning\" data-warning-type=\"" << html_escape(w.type)
      << "\" data-stage=\"" << html_escape(w.stage) << "\">Warning";
    if (!w.stage.empty()) h << ", " << html_escape(w.stage) << " stage";
    h << ": <code>" << html_escape(w.type) << "</code>";
    if (hw.row != nullptr)
      h << " (<a href=\"#cause-" << html_escape(hw.row->key) << "\">"
        << html_escape(hw.row->title) << "</a>)";
    h << ": " << html_escape(w.message) << "</div>\n";
  }
  h << "</div>\n";
}

void write_case(std::ostringstream& h, const HtmlCase& c) {
  h << "<div class=\"case\" data-case=\"" << html_escape(c.rc->classname + "." + c.rc->name)
    << "\" data-verdict=\"" << c.verdict << "\"";
  if (!c.variant.empty()) h << " data-variant=\"" << html_escape(c.variant) << "\"";
  h << " id=\"" << c.anchor << "\"><strong>" << html_escape(c.rc->name) << "</strong>";
  if (!c.variant.empty()) h << " [" << html_escape(c.variant) << "]";
  h << " <span class=\"" << (c.verdict == "error" ? "failed" : c.verdict) << "\">" << c.verdict
    << "</span>\n";
  if (!c.rc->promise.empty())
    h << "<div class=\"promise\">Promise: " << html_escape(c.rc->promise) << "</div>\n";
  if (!c.rc->declared.empty())
    h << "<div class=\"promise\">Declared at <code>" << html_escape(c.rc->declared)
      << "</code></div>\n";
  if (c.verdict == "skipped") {
    h << "<div class=\"reason\">Skipped: " << html_escape(c.rc->message) << "</div>\n";
  } else if (c.verdict != "passed") {
    h << "<div class=\"reason\">" << html_escape(c.rc->message) << "</div>\n";
  }
  write_case_cause(h, c);
  write_case_warnings(h, c);
  if (failed(c)) {
    h << "<details><summary>What went wrong</summary><pre>" << html_escape(c.rc->body)
      << "</pre></details>\n";
  }
  if (c.json != nullptr) {
    h << "<details class=\"json\"><summary>The check's JSON report</summary><pre>"
      << html_escape(c.json->text) << "</pre></details>\n";
  }
  h << "</div>\n";
}

// The layers as the page shows them: the ladder's first, then the others by name.
std::vector<std::string> layer_order(const HtmlReport& r) {
  std::vector<std::string> order(std::begin(kLayers), std::end(kLayers));
  for (const auto& [layer, cases] : r.by_layer)
    if (std::find(order.begin(), order.end(), layer) == order.end()) order.push_back(layer);
  return order;
}

// Every case, by layer.
void write_cases(std::ostringstream& h, const HtmlReport& r) {
  h << "<h2>Every case</h2>\n";
  for (const std::string& layer : layer_order(r)) {
    const auto found = r.by_layer.find(layer);
    if (found == r.by_layer.end()) continue;
    const LayerState& s = r.layers.at(layer);
    h << "<section class=\"layer\" data-layer=\"" << html_escape(layer) << "\">\n<h3>"
      << html_escape(layer) << " <span class=\"" << s.css() << "\">" << html_escape(s.state())
      << "</span> (" << count_text(s) << ")</h3>\n";
    for (const HtmlCase& c : found->second) write_case(h, c);
    h << "</section>\n";
  }
}

// Each case's report, the cause of the catalogue it names, and its warnings.
void attach_reports(HtmlReport& r, const CaseReports& case_json, const Causes& causes) {
  for (auto& [layer, cases] : r.by_layer) {
    for (HtmlCase& c : cases) {
      c.json = report_of_case(case_json, c.variant, c.rc->classname, c.rc->name);
      if (c.json == nullptr) continue;
      c.cause = cause_met(causes, *c.json);
      for (const ReportWarning& w : c.json->warnings)
        c.warnings.push_back({&w, w.type.empty() ? nullptr : causes.by_type(w.type)});
    }
  }
}

// A case that met a cause: its report's error.type names it, or only one of its warnings.
struct MetBy {
  const HtmlCase* c = nullptr;
  bool warned = false;
};

// The cases of the page that met each cause, by its key, in page order: in error.type, or in a
// warning's type (once per case).
std::map<std::string, std::vector<MetBy>> cases_by_cause(const HtmlReport& r) {
  std::map<std::string, std::vector<MetBy>> met;
  for (const std::string& layer : layer_order(r)) {
    const auto found = r.by_layer.find(layer);
    if (found == r.by_layer.end()) continue;
    for (const HtmlCase& c : found->second) {
      if (c.cause) met[c.cause->row->key].push_back({&c, false});
      for (const HtmlWarning& w : c.warnings) {
        if (w.row == nullptr) continue;
        std::vector<MetBy>& cases = met[w.row->key];
        if (std::none_of(cases.begin(), cases.end(), [&c](const MetBy& m) { return m.c == &c; }))
          cases.push_back({&c, true});
      }
    }
  }
  return met;
}

// One row: the cause, and the cases that met it, each a link to its case.
void write_cause_row(std::ostringstream& h, const CauseRow& row, const std::vector<MetBy>& met) {
  const bool by_failed = std::any_of(met.begin(), met.end(),
                                     [](const MetBy& m) { return !m.warned && failed(*m.c); });
  h << "<tr id=\"cause-" << html_escape(row.key) << "\" data-cause=\"" << html_escape(row.key)
    << "\" data-error-type=\"" << html_escape(row.error_type) << "\" data-met=\"" << met.size()
    << "\"" << (met.empty() ? "" : by_failed ? " class=\"met by-failed\"" : " class=\"met\"")
    << "><td>" << html_escape(row.stage) << "</td><td>" << html_escape(row.title)
    << "</td><td><code>" << html_escape(row.error_type) << "</code></td><td>"
    << html_escape(row.next_action) << "</td><td>";
  if (met.empty()) h << "-";
  for (std::size_t i = 0; i < met.size(); ++i) {
    const HtmlCase& c = *met[i].c;
    h << (i ? ", " : "") << "<a href=\"#" << c.anchor << "\" class=\""
      << (met[i].warned ? "warned" : failed(c) ? "failed" : c.verdict) << "\">"
      << html_escape(c.rc->classname + "." + c.rc->name)
      << (c.variant.empty() ? std::string() : " [" + html_escape(c.variant) + "]") << "</a>"
      << (met[i].warned ? " (a warning)" : "");
  }
  h << "</td></tr>\n";
}

// The catalogue, one row per cause, those this run's cases met marked and linked to them.
void write_causes(std::ostringstream& h, const HtmlReport& r, const Causes& causes) {
  const auto met = cases_by_cause(r);
  h << "<section id=\"causes\" data-causes=\"" << causes.rows.size() << "\" data-met=\""
    << met.size() << "\">\n<h2>Causes the check tells apart</h2>\n";
  if (causes.rows.empty()) {
    h << "<p>No cause catalogue given (kernodeck-junit without --causes).</p>\n</section>\n";
    return;
  }
  h << "<p>Within a failing layer the check names the cause it recognises in its report's "
    << "<code>error.type</code>, and a warning, noticed without failing, names one in its "
    << "<code>type</code>; each has its next action. " << met.size() << " of "
    << causes.rows.size() << " met by this run's cases (marked, with the cases).</p>\n"
    << "<table id=\"cause-table\">\n<tr><th>layer</th><th>cause</th><th>error.type</th>"
    << "<th>next action</th><th>met in this run by</th></tr>\n";
  static const std::vector<MetBy> none;
  for (const CauseRow& row : causes.rows) {
    const auto found = met.find(row.key);
    write_cause_row(h, row, found == met.end() ? none : found->second);
  }
  h << "</table>\n</section>\n";
}

}  // namespace

std::string certificate_html(const Report& junit, const CaseReports& case_json,
                             const Causes& causes) {
  HtmlReport report = html_report(junit);
  attach_reports(report, case_json, causes);
  std::ostringstream h;
  write_head(h, report);
  // The view right after the counts, above the environment: it is what such a page is about.
  if (junit.view) {
    h << "<section id=\"" << junit.view->id << "\">\n";
    for (const ViewTable& t : junit.view->tables) write_view_table(h, t);
    h << "</section>\n";
  }
  write_environment(h, report);
  write_ladder(h, report, junit.view);
  write_cases(h, report);
  write_causes(h, report, causes);
  h << "</main>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace kd::junit
