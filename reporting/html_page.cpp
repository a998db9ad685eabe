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

// ` name="value"`, the value escaped.
std::string attr(const char* name, std::string_view value) {
  return std::string(" ") + name + "=\"" + escape_markup(value) + "\"";
}

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

  std::string key() const { return rc->classname + "." + rc->name; }
  bool failed() const { return verdict == "failed" || verdict == "error"; }
};

// A layer's step of the ladder, from the counts of its cases.
LadderStep layer_step(const std::string& layer, const Counts& n) {
  const std::size_t failed = n.failures + n.errors;
  const std::string state = failed > 0      ? "failed"
                            : n.passed == 0 ? (n.skipped == 0 ? "not run" : "skipped")
                            : n.skipped > 0 ? "passed, with skips"
                                            : "passed";
  return {layer, state, failed > 0 ? "failed" : n.passed == 0 ? "skipped" : "passed",
          std::to_string(n.passed) + " passed, " + std::to_string(failed) + " failed, " +
              std::to_string(n.skipped) + " skipped"};
}

// What the page shows, read from the report.
struct HtmlReport {
  Counts counts;
  std::vector<std::string> variants;                               // in report order
  std::map<std::string, std::map<std::string, std::string>> facts;  // property -> variant -> value
  std::vector<std::string> fact_order;
  std::vector<std::pair<std::string, std::string>> certificates;  // variant, plain words
  std::map<std::string, std::vector<HtmlCase>> by_layer;
  std::map<std::string, Counts> layers;
  std::vector<std::string> layer_order;  // the ladder's layers first, then the others by name
  std::size_t warnings = 0, warned_cases = 0;  // the cases' reports' warnings, and in how many
};

// Each suite's variant and its other properties as facts of that variant; each case counted and
// filed under its layer (with the check's report of it, its cause and warnings), or as a
// certificate's statement.
HtmlReport html_report(const Report& report, const CaseReports& case_json, const Causes& causes) {
  HtmlReport r;
  for (const ReportSuite& s : report.suites) {
    if (std::find(r.variants.begin(), r.variants.end(), s.variant) == r.variants.end())
      r.variants.push_back(s.variant);
    for (const auto& [name, value] : s.properties) {
      if (name == kVariantProperty) continue;
      if (!r.facts.count(name)) r.fact_order.push_back(name);
      r.facts[name].emplace(s.variant, value);
    }
    for (const ReportCase& rc : s.cases) {
      r.counts.add(rc.verdict);
      if (rc.classname == kCertificateLayer) {
        r.certificates.emplace_back(s.variant, certificate_words(rc));
        continue;
      }
      HtmlCase c{&rc, s.variant, verdict_word(rc.verdict),
                 "case-" + std::to_string(r.counts.tests)};
      r.layers[rc.classname].add(rc.verdict);
      c.json = report_of_case(case_json, c.variant, rc.classname, rc.name);
      if (c.json != nullptr) {
        c.cause = cause_met(causes, *c.json);
        for (const ReportWarning& w : c.json->warnings)
          c.warnings.push_back({&w, w.type.empty() ? nullptr : causes.by_type(w.type)});
        r.warnings += c.warnings.size();
        r.warned_cases += c.warnings.empty() ? 0 : 1;
      }
      r.by_layer[rc.classname].push_back(std::move(c));
    }
  }
  r.layer_order.assign(std::begin(kLayers), std::end(kLayers));
  for (const auto& [layer, cases] : r.by_layer)
    if (std::find(r.layer_order.begin(), r.layer_order.end(), layer) == r.layer_order.end())
      r.layer_order.push_back(layer);
  return r;
}

// The counts, and how many warnings the cases' reports hold, in how many cases: a line under the
// counts, since a warning changes no count.
void write_head(std::ostringstream& h, const std::string& title, const HtmlReport& r) {
  const Counts& n = r.counts;
  const bool certified = n.failures == 0 && n.errors == 0;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<meta name=\"color-scheme\" content=\"light dark\">\n"
    << "<title>" << escape_markup(title) << ": certificate</title>\n<style>\n" << page_style()
    << "</style>\n</head>\n<body>\n"
    << "<main id=\"certificate\" data-tests=\"" << n.tests << "\" data-passed=\"" << n.passed
    << "\" data-failed=\"" << n.failures << "\" data-errors=\"" << n.errors
    << "\" data-skipped=\"" << n.skipped << "\" data-certified=\"" << (certified ? "yes" : "no")
    << "\">\n<h1>" << escape_markup(title) << ": certificate</h1>\n"
    << "<p class=\"verdict " << (certified ? "passed" : "failed") << "\" id=\"verdict\">"
    << (certified ? "CERTIFIED: no case failed." : "NOT CERTIFIED: a case failed or erred.")
    << "</p>\n<p id=\"counts\">" << n.tests << " tests in the report (the certificate's own "
    << "included): " << n.passed << " passed, " << n.failures << " failed, " << n.errors
    << " errors, " << n.skipped << " skipped.</p>\n";
  h << "<p id=\"warnings\" data-warnings=\"" << r.warnings << "\">";
  if (r.warnings == 0) {
    h << "No warning in the cases' reports.</p>\n";
    return;
  }
  h << plural(r.warnings, "warning", "warnings") << " in the reports of "
    << plural(r.warned_cases, "case", "cases") << " (marked below): what the check noticed without "
    << "failing for it, which changes no verdict and no exit code.</p>\n";
}

// The environment: one column per variant; then each certificate's statement.
void write_environment(std::ostringstream& h, const HtmlReport& r) {
  h << "<h2>Environment</h2>\n";
  if (r.fact_order.empty()) {
    h << "<p id=\"environment\">No facts in this report (kernodeck-junit without --cases).</p>\n";
  } else {
    h << "<table id=\"environment\">\n<tr><th>fact</th>";
    for (const std::string& v : r.variants)
      h << "<th>" << escape_markup(v.empty() ? "value" : v) << "</th>";
    h << "</tr>\n";
    for (const std::string& name : r.fact_order) {
      h << "<tr" << attr("data-property", name) << "><th>" << escape_markup(name) << "</th>";
      const auto& values = r.facts.at(name);
      for (const std::string& v : r.variants) {
        const auto it = values.find(v);
        h << "<td" << attr("data-variant", v) << ">"
          << escape_markup(it == values.end() ? "-" : it->second) << "</td>";
      }
      h << "</tr>\n";
    }
    h << "</table>\n";
  }
  for (const auto& [variant, text] : r.certificates)
    h << "<pre class=\"statement\"" << attr("data-variant", variant) << ">" << escape_markup(text)
      << "</pre>\n";
}

// A table of the report's view, or what it says without rows.
void write_view_table(std::ostringstream& h, const ViewTable& t) {
  h << "<h2>" << escape_markup(t.title) << "</h2>\n";
  if (t.rows.empty()) {
    h << "<p id=\"" << t.id << "\">" << escape_markup(t.none) << "</p>\n";
    return;
  }
  if (!t.intro.empty()) h << "<p>" << escape_markup(t.intro) << "</p>\n";
  h << "<table id=\"" << t.id << "\">\n<tr>";
  for (const std::string& header : t.headers) h << "<th>" << escape_markup(header) << "</th>";
  h << "</tr>\n";
  for (const ViewRow& row : t.rows) {
    h << "<tr";
    for (const auto& [name, value] : row.data) h << attr(("data-" + name).c_str(), value);
    h << ">";
    for (const ViewCell& cell : row.cells)
      h << "<td" << (cell.css.empty() ? "" : " class=\"" + cell.css + "\"") << ">"
        << escape_markup(cell.text) << "</td>";
    h << "</tr>\n";
  }
  h << "</table>\n";
}

// The ladder: application at the top, import at the bottom; the view's own, or the cases' of
// each layer.
void write_ladder(std::ostringstream& h, const HtmlReport& r,
                  const std::optional<ReportView>& view) {
  const bool own = view && !view->ladder.empty();
  std::vector<LadderStep> steps = own ? view->ladder : std::vector<LadderStep>{};
  if (!own)
    for (const char* layer : kLayers)
      steps.push_back(layer_step(layer, r.layers.count(layer) ? r.layers.at(layer) : Counts{}));
  h << "<h2>The layers</h2>\n<ol class=\"ladder\" id=\"ladder\""
    << (own ? attr("data-counts", view->counts) : "") << ">\n";
  for (const LadderStep& s : steps)
    h << "<li class=\"" << s.css << "\" data-layer=\"" << s.layer << "\""
      << attr("data-state", s.state) << "><strong>" << s.layer
      << "</strong>: " << escape_markup(s.state) << " (" << s.counted << ")</li>\n";
  h << "</ol>\n";
}

// "<a href="#cause-KEY">title</a>", a link to the catalogue's row of a cause.
std::string cause_link(const CauseRow& row) {
  return "<a href=\"#cause-" + escape_markup(row.key) + "\">" + escape_markup(row.title) + "</a>";
}

// The cause a case's report names: for a failed or erred case, prominent, with its next action
// and the report's own words; for any other, one line. Then each warning of the case's report,
// whatever its verdict: where it was noticed, its type (a link to the catalogue's row when it
// names a cause) and the check's words.
void write_case_cause(std::ostringstream& h, const HtmlCase& c) {
  if (c.cause) {
    const CauseRow& row = *c.cause->row;
    const std::string link =
        cause_link(row) + " (<code>" + escape_markup(row.error_type) + "</code>)";
    if (!c.failed()) {
      h << "<div class=\"cause-met\"" << attr("data-cause", row.key) << ">Cause met: " << link
        << "</div>\n";
    } else {
      h << "<div class=\"cause\"" << attr("data-cause", row.key) << ">\n"
        << "<div class=\"cause-title\">Cause: " << link << ", " << escape_markup(row.stage)
        << " layer, " << escape_markup(row.code) << " (" << row.exit_code << ")</div>\n"
        << "<div class=\"next-action\">Next action: " << escape_markup(row.next_action)
        << "</div>\n";
      if (!c.cause->message.empty())
        h << "<div class=\"said\">The check said: " << escape_markup(c.cause->message)
          << "</div>\n";
      h << "</div>\n";
    }
  }
  if (c.warnings.empty()) return;
  h << "<div class=\"warnings\" data-warnings=\"" << c.warnings.size() << "\">\n";
  for (const HtmlWarning& hw : c.warnings) {
    const ReportWarning& w = *hw.warning;
    h << "<div class=\"warning\"" << attr("data-warning-type", w.type)
      << attr("data-stage", w.stage) << ">Warning"
      << (w.stage.empty() ? "" : ", " + escape_markup(w.stage) + " stage") << ": <code>"
      << escape_markup(w.type) << "</code>"
      << (hw.row != nullptr ? " (" + cause_link(*hw.row) + ")" : "") << ": "
      << escape_markup(w.message) << "</div>\n";
  }
  h << "</div>\n";
}

void write_case(std::ostringstream& h, const HtmlCase& c) {
  const ReportCase& rc = *c.rc;
  h << "<div class=\"case\"" << attr("data-case", c.key()) << " data-verdict=\"" << c.verdict
    << "\"" << (c.variant.empty() ? "" : attr("data-variant", c.variant)) << " id=\"" << c.anchor
    << "\"><strong>" << escape_markup(rc.name) << "</strong>"
    << (c.variant.empty() ? "" : " [" + escape_markup(c.variant) + "]") << " <span class=\""
    << (c.verdict == "error" ? "failed" : c.verdict) << "\">" << c.verdict << "</span>\n";
  if (!rc.promise.empty())
    h << "<div class=\"promise\">Promise: " << escape_markup(rc.promise) << "</div>\n";
  if (!rc.declared.empty())
    h << "<div class=\"promise\">Declared at <code>" << escape_markup(rc.declared)
      << "</code></div>\n";
  if (c.verdict != "passed")
    h << "<div class=\"reason\">" << (c.verdict == "skipped" ? "Skipped: " : "")
      << escape_markup(rc.message) << "</div>\n";
  write_case_cause(h, c);
  if (c.failed())
    h << "<details><summary>What went wrong</summary><pre>" << escape_markup(rc.body)
      << "</pre></details>\n";
  if (c.json != nullptr)
    h << "<details class=\"json\"><summary>The check's JSON report</summary><pre>"
      << escape_markup(c.json->text) << "</pre></details>\n";
  h << "</div>\n";
}

// Every case, by layer.
void write_cases(std::ostringstream& h, const HtmlReport& r) {
  h << "<h2>Every case</h2>\n";
  for (const std::string& layer : r.layer_order) {
    const auto found = r.by_layer.find(layer);
    if (found == r.by_layer.end()) continue;
    const LadderStep s = layer_step(layer, r.layers.at(layer));
    h << "<section class=\"layer\"" << attr("data-layer", layer) << ">\n<h3>"
      << escape_markup(layer) << " <span class=\"" << s.css << "\">" << escape_markup(s.state)
      << "</span> (" << s.counted << ")</h3>\n";
    for (const HtmlCase& c : found->second) write_case(h, c);
    h << "</section>\n";
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
  for (const std::string& layer : r.layer_order) {
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
                                     [](const MetBy& m) { return !m.warned && m.c->failed(); });
  h << "<tr id=\"cause-" << escape_markup(row.key) << "\"" << attr("data-cause", row.key)
    << attr("data-error-type", row.error_type) << " data-met=\"" << met.size() << "\""
    << (met.empty() ? "" : by_failed ? " class=\"met by-failed\"" : " class=\"met\"") << "><td>"
    << escape_markup(row.stage) << "</td><td>" << escape_markup(row.title) << "</td><td><code>"
    << escape_markup(row.error_type) << "</code></td><td>" << escape_markup(row.next_action)
    << "</td><td>" << (met.empty() ? "-" : "");
  for (std::size_t i = 0; i < met.size(); ++i) {
    const HtmlCase& c = *met[i].c;
    h << (i ? ", " : "") << "<a href=\"#" << c.anchor << "\" class=\""
      << (met[i].warned ? "warned" : c.failed() ? "failed" : c.verdict) << "\">"
      << escape_markup(c.key()) << (c.variant.empty() ? "" : " [" + escape_markup(c.variant) + "]")
      << "</a>" << (met[i].warned ? " (a warning)" : "");
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
  const HtmlReport report = html_report(junit, case_json, causes);
  std::ostringstream h;
  write_head(h, junit.title, report);
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
