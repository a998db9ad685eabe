#!/usr/bin/env python3
"""What the pipeline templates of ci/templates/ publish and how they act on the check's verdict,
beyond what their schemas say (ci/templates-check runs the schemas first, then this).

  templates_check.py TEMPLATES OUTCOMES_JSON

OUTCOMES_JSON is the build's outcomes.json (kernodeck-causes --outcomes: the check's outcome
table), from which the Kubernetes Jobs' exit codes are learned; which outcomes are the image's
(IMAGE_FAULT_CODES below) is said once, here, and every template that names them (the Jobs'
policies and scripts, the GPU alert, the node health check) is held to it. Prints each problem
on stderr and exits 1, or says that the templates publish what the dashboards page promises.
The YAML parser (ruamel.yaml) comes from the venv of ./ci/setup --junit-consumer; the checks
themselves take parsed documents, so that their tests need no package.
"""
import json
import re
import sys
from pathlib import Path

JUNIT = "reports/gpu-proof/junit.xml"
SUMMARY = "reports/gpu-proof/summary.md"
HTML = "reports/gpu-proof/index.html"
FLEET_JUNIT = "reports/fleet/junit.xml"
FLEET_HTML = "reports/fleet/index.html"
# kernodeck-junit's fleet verb, the program's name and the verb maybe split by a continuation.
FLEET_COMMAND = re.compile(r"kernodeck-junit[\s\\]+fleet\s")

# mikepenz/action-junit-report v6.4.2, pinned to its commit, and the inputs its action.yml
# documents.
JUNIT_ACTION = "mikepenz/action-junit-report@d9f48fc87bc235f7e214acf696ca5abc0a986f16"
JUNIT_ACTION_INPUTS = {
    "token", "github_token", "report_paths", "group_reports", "test_files_prefix",
    "exclude_sources", "annotate_only", "check_annotations", "update_check", "check_name",
    "commit", "fail_on_failure", "fail_on_parse_error", "require_tests", "require_passed_tests",
    "include_passed", "include_skipped", "check_title_template", "bread_crumb_delimiter",
    "summary", "check_retries", "transformers", "job_summary", "job_summary_text",
    "detailed_summary", "flaky_summary", "verbose_summary", "skip_success_summary",
    "include_empty_in_summary", "include_time_in_summary", "simplified_summary", "group_suite",
    "comment", "updateComment", "annotate_notice", "follow_symlink", "job_name",
    "annotations_limit", "skip_annotations", "truncate_stack_traces", "resolve_ignore_classname",
    "skip_comment_without_tests", "pr_id",
}

# The outcomes that are the image's, the same on every node running it (docs/fleets.md, the
# policy table): a Job fails at once on them and on the usage error, its scripts exit with the
# first of them over any node fault, and the GPU alert labels them fault="image". Among them a
# module of the application that does not import with the image's torch, and a weights file it
# cannot load (the application layer), a cuDNN torch refuses (the backend's libraries) and a
# torch.compile the image's toolchain cannot run.
# Their exit codes come from outcomes.json; the templates that name them are checked against this.
IMAGE_FAULT_CODES = ("TORCH_MISSING", "TORCH_IMPORT_FAILED", "GPU_BACKEND_ABSENT",
                     "EXTENSION_IMPORT_FAILED", "WEIGHTS_UNUSABLE", "BACKEND_LIBRARY_MISMATCH",
                     "COMPILE_FAILED")
# Of those, the ones a node's health check never drains for: met after the GPU passed its own
# layers (device, computation), in torch.compile's toolchain or the application's modules and
# weights. The others stay reasons to drain
# there: outside a container the torch is the node's own installation (fleet.slurm's
# half-installed package on one node), and a GPU never reached is not a GPU that works.
UNDRAINED_CODES = ("EXTENSION_IMPORT_FAILED", "WEIGHTS_UNUSABLE", "COMPILE_FAILED")
# INTERNAL_ERROR is left to the Job's default (counted, no rule): a defect of the check.
UNRULED_CODES = ("INTERNAL_ERROR",)
assert set(UNDRAINED_CODES) <= set(IMAGE_FAULT_CODES)

HEALTHCHECK = "slurm/kernodeck-healthcheck"
RULES = "prometheus/kernodeck-rules.yml"
GPU_ALERT = "KernodeckGpuCheckFailed"
# A template's list of codes, "^(A|B|C)$", and a script's list of exit codes, "image_faults=(2 3)".
CODE_ALTERNATIVES = re.compile(r'"\^\(([A-Z_|]+)\)\$"')
SCRIPT_IMAGE_FAULTS = re.compile(r"^\s*image_faults=\(([0-9 ]*)\)", re.M)
HEALTH_UNDRAINED = re.compile(r"^undrained_codes=\(([A-Z_ ]*)\)", re.M)


def fault_exit_codes(outcomes):
    """(image faults, node faults): the exit codes a Job's podFailurePolicy fails at once on and
    counts, from the check's outcome table as kernodeck-causes --outcomes prints it."""
    rows = outcomes["outcomes"]
    codes = {row["code"] for row in rows}
    missing = [code for code in IMAGE_FAULT_CODES + UNRULED_CODES if code not in codes]
    if missing:
        raise ValueError(f"outcomes.json has no outcome {', '.join(missing)}")
    image = {outcomes["usage_exit_code"]}
    image |= {row["exit_code"] for row in rows if row["code"] in IMAGE_FAULT_CODES}
    node = {row["exit_code"] for row in rows
            if not row["passed"] and row["code"] not in IMAGE_FAULT_CODES + UNRULED_CODES}
    return sorted(image), sorted(node - image)


def truthy(value):
    return value is True or str(value).lower() == "true"


def runs_after_failure(step):
    condition = str(step.get("if", ""))
    return any(word in condition for word in ("always()", "!cancelled()", "failure()"))


def github_report_steps(workflow, steps, problem):
    """The JUnit report, job summary and page steps; returns the reporters of JUNIT."""
    all_reporters = [s for s in steps
                     if str(s.get("uses", "")).startswith("mikepenz/action-junit-report@")]
    reporters = [s for s in all_reporters
                 if (s.get("with") or {}).get("report_paths") != FLEET_JUNIT]
    if len(reporters) != 1:
        problem(f"{len(reporters)} steps use mikepenz/action-junit-report for {JUNIT}, expected 1")
    for step in all_reporters:
        given = step.get("with") or {}
        for key in sorted(set(given) - JUNIT_ACTION_INPUTS):
            problem(f"mikepenz/action-junit-report has no input '{key}'")
    for step in reporters:
        if step["uses"] != JUNIT_ACTION:
            problem(f"uses {step['uses']}: the inputs checked here are those of {JUNIT_ACTION}"
                    " (v6.4.2)")
        given = step.get("with") or {}
        if given.get("report_paths") != JUNIT:
            problem(f"the JUnit report step reads {given.get('report_paths')!r}, not {JUNIT}")
        for key in ("require_tests", "include_passed", "include_skipped", "detailed_summary"):
            if not truthy(given.get(key)):
                problem(f"the JUnit report step needs {key}: true (skipped cases listed)")
        if not runs_after_failure(step):
            problem("the JUnit report step must run after a failed run too (if: !cancelled())")
    summaries = [s for s in steps if SUMMARY in str(s.get("run", ""))
                 and "GITHUB_STEP_SUMMARY" in str(s.get("run", ""))]
    if not summaries:
        problem(f"no step writes {SUMMARY} into $GITHUB_STEP_SUMMARY")
    for step in summaries:
        if not runs_after_failure(step):
            problem("the job summary step must run after a failed run too (if: !cancelled())")
    pages = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")
             and (s.get("with") or {}).get("path") == HTML]
    if len(pages) != 1:
        problem(f"{len(pages)} upload-artifact steps keep {HTML} alone, expected 1")
    for step in pages:
        if (step.get("with") or {}).get("if-no-files-found") not in ("warn", "ignore"):
            problem(f"{HTML} may be missing: its upload needs if-no-files-found warn or ignore")
        if not runs_after_failure(step):
            problem("the certificate page must be kept after a failed run too")
    # Each job that publishes a check run asks for checks: write itself (zizmor wants no broad
    # workflow-level permission).
    for key, job in (workflow.get("jobs") or {}).items():
        publishes = any(str(s.get("uses", "")).startswith("mikepenz/action-junit-report@")
                        for s in (job.get("steps") or []) if isinstance(s, dict))
        if publishes and ((job.get("permissions") or {}).get("checks")) != "write":
            problem(f"job {key}: permissions: checks: write is needed for its check run")
    return all_reporters, reporters


def github_fleet(workflow, all_reporters, reporters, problem):
    """The job that publishes JUNIT runs as a matrix over runner kinds, each kind under its own
    name; a final job needs it, runs after failures, merges with kernodeck-junit fleet and publishes."""
    gh_jobs = {key: job for key, job in (workflow.get("jobs") or {}).items()
               if isinstance(job, dict)}
    matrix_jobs = [key for key, job in gh_jobs.items()
                   if any(s in reporters for s in job.get("steps") or [])]
    for key in matrix_jobs:
        job = gh_jobs[key]
        matrix = ((job.get("strategy") or {}).get("matrix") or {})
        if not matrix:
            problem(f"{key}: no strategy.matrix over the kinds of GPU runner")
        if "matrix." not in str(job.get("runs-on")):
            problem(f"{key}: runs-on does not pick the runner by the matrix's kind")
        if (job.get("strategy") or {}).get("fail-fast") is not False:
            problem(f"{key}: strategy.fail-fast must be false (every kind reports)")
        for step in job.get("steps") or []:
            given = step.get("with") or {} if isinstance(step, dict) else {}
            if step in reporters and "matrix." not in str(given.get("check_name")):
                problem(f"{key}: each kind must publish under its own check_name")
            if str(step.get("uses", "")).startswith("actions/upload-artifact@") and \
                    "matrix." not in str(given.get("name")):
                problem(f"{key}: artifact {given.get('name')!r} is not named after the kind")
    fleet_reporters = [s for s in all_reporters
                       if (s.get("with") or {}).get("report_paths") == FLEET_JUNIT]
    fleet_jobs = [key for key, job in gh_jobs.items()
                  if any(s in fleet_reporters for s in job.get("steps") or [])]
    if len(fleet_jobs) != 1:
        problem(f"{len(fleet_jobs)} jobs publish {FLEET_JUNIT}, expected 1")
    for key in fleet_jobs:
        job = gh_jobs[key]
        needs = job.get("needs") or []
        needs = [needs] if isinstance(needs, str) else needs
        if not set(matrix_jobs) <= set(needs):
            problem(f"{key}: must need {matrix_jobs} (every kind, before merging)")
        if "!cancelled()" not in str(job.get("if", "")):
            problem(f"{key}: must run whatever the kinds' results (if: !cancelled())")
        runs = " ".join(str(s.get("run", "")) for s in job.get("steps") or []
                        if isinstance(s, dict))
        if not FLEET_COMMAND.search(runs) or "--expect" not in runs:
            problem(f"{key}: no kernodeck-junit fleet with the expected kinds (--expect)")


def github_problems(workflow, problem):
    steps = [step for job in (workflow.get("jobs") or {}).values() if isinstance(job, dict)
             for step in job.get("steps") or [] if isinstance(step, dict)]
    all_reporters, reporters = github_report_steps(workflow, steps, problem)
    github_fleet(workflow, all_reporters, reporters, problem)


def gitlab_junit_jobs(jobs, problem):
    junit_jobs = [key for key, job in jobs.items()
                  if ((job.get("artifacts") or {}).get("reports") or {}).get("junit") == JUNIT]
    if len(junit_jobs) != 1:
        problem(f"{len(junit_jobs)} jobs publish {JUNIT} as artifacts:reports:junit, expected 1")
    for key in junit_jobs:
        if (jobs[key].get("artifacts") or {}).get("when") != "always":
            problem(f"{key}: the JUnit report must be kept after a failed run (when: always)")
    for key in junit_jobs:
        matrix = ((jobs[key].get("parallel") or {}) if isinstance(jobs[key].get("parallel"), dict)
                  else {}).get("matrix") or []
        kinds = {variable for entry in matrix if isinstance(entry, dict) for variable in entry}
        if not kinds:
            problem(f"{key}: no parallel:matrix over the kinds of GPU runner")
        if not any(f"${kind}" in map(str, jobs[key].get("tags") or []) for kind in kinds):
            problem(f"{key}: its tags do not pick the runner by the matrix's kind")
    return junit_jobs


def gitlab_problems(pipeline, problem):
    jobs = {key: job for key, job in pipeline.items() if isinstance(job, dict) and "script" in job}
    junit_jobs = gitlab_junit_jobs(jobs, problem)
    exposing = {key: job["artifacts"] for key, job in jobs.items()
                if isinstance(job.get("artifacts"), dict) and "expose_as" in job["artifacts"]}
    if not any(FLEET_HTML in (artifacts.get("paths") or []) for artifacts in exposing.values()):
        problem(f"no job exposes {FLEET_HTML} in the merge request (artifacts:expose_as)")
    for key, artifacts in exposing.items():
        if ((artifacts.get("reports") or {}).get("junit")) != FLEET_JUNIT:
            problem(f"{key}: must publish the certificate of the image, {FLEET_JUNIT}")
        script = " ".join(map(str, jobs[key].get("script") or []))
        if not FLEET_COMMAND.search(script) or "--expect" not in script:
            problem(f"{key}: no kernodeck-junit fleet with the expected kinds (--expect)")
    for key, artifacts in exposing.items():
        paths = artifacts.get("paths") or []
        # GitLab's rules: expose_as needs artifacts:paths; paths with a variable are not shown; a
        # glob is not supported; a folder or more than one path links to the artifact browser.
        if len(paths) != 1:
            problem(f"{key}: expose_as with {len(paths)} paths links to the artifact browser;"
                    " expose one file")
        for path in paths:
            if re.search(r"[*?\[$]", path) or path.endswith("/"):
                problem(f"{key}: exposed path {path!r} must be one file, named literally")
        if not re.fullmatch(r"[\w][\w -]*", str(artifacts.get("expose_as", ""))):
            problem(f"{key}: expose_as {artifacts.get('expose_as')!r} is not a plain name")
        job = jobs[key]
        if job.get("when") != "always" or artifacts.get("when") != "always":
            problem(f"{key}: must run and keep its artifact after a failed certification"
                    " (when: always, artifacts:when: always)")
        needed = [n if isinstance(n, str) else n.get("job") for n in job.get("needs") or []]
        if junit_jobs and junit_jobs[0] not in needed:
            problem(f"{key}: needs the artifacts of {junit_jobs[0]}")


def failure_policy_problems(job, faults, problem):
    """What the API schemas leave open about acting on the check's verdict: the rules of the
    Job's podFailurePolicy against (image faults, node faults). Returns the pod's spec."""
    image_faults, node_faults = faults
    spec = job.get("spec") or {}
    pod = ((spec.get("template") or {}).get("spec")) or {}
    if pod.get("restartPolicy") != "Never":
        problem("podFailurePolicy needs the pod's restartPolicy: Never")
    containers = {c.get("name") for key in ("containers", "initContainers")
                  for c in pod.get(key) or []}
    rules = ((spec.get("podFailurePolicy") or {}).get("rules")) or []
    if not rules:
        problem("no podFailurePolicy: the Job ignores the check's exit codes")
    acting = {}
    for rule in rules:
        codes = rule.get("onExitCodes")
        if codes is None:
            conditions = [c.get("type") for c in rule.get("onPodConditions") or []]
            if "DisruptionTarget" in conditions and rule.get("action") != "Ignore":
                problem("a disruption (eviction, preemption) must be ignored, not counted")
            acting.setdefault("Ignore-disruption", "DisruptionTarget" in conditions)
            continue
        values = codes.get("values") or []
        if values != sorted(set(values)) or (codes.get("operator") == "In" and 0 in values):
            problem(f"onExitCodes values {values} must be ordered, unique, without 0 for In")
        if codes.get("containerName") not in containers:
            problem(f"onExitCodes names {codes.get('containerName')!r}, not a container of the pod")
        if codes.get("operator") == "In":
            acting[rule.get("action")] = values
    if acting.get("FailJob") != image_faults:
        problem(f"FailJob must act on exactly {image_faults}, not {acting.get('FailJob')}")
    if acting.get("Count") != node_faults:
        problem(f"Count must act on exactly {node_faults}, not {acting.get('Count')}")
    if not acting.get("Ignore-disruption"):
        problem("no rule ignores DisruptionTarget")
    return pod


def script_problems(pod, image_faults, problem):
    """Each container running the check exits with the first image fault's code over any node
    fault's (several GPUs, one pod): its script's list of them is the one FailJob acts on."""
    for container in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        script = " ".join(map(str, container.get("args") or []))
        if "kernodeck-diagnostic" not in script:
            continue
        listed = SCRIPT_IMAGE_FAULTS.search(script)
        if not listed:
            problem(f"container {container.get('name')!r}: its script has no image_faults=(...)"
                    " to exit with an image fault's code first")
        elif [int(code) for code in listed.group(1).split()] != image_faults:
            problem(f"container {container.get('name')!r}: image_faults=({listed.group(1)}) is not"
                    f" FailJob's {image_faults}")


def kubernetes_problems(job, faults, problem):
    pod = failure_policy_problems(job, faults, problem)
    script_problems(pod, faults[0], problem)
    spec = job.get("spec") or {}
    if "backoffLimitPerIndex" in spec and spec.get("completionMode") != "Indexed":
        problem("backoffLimitPerIndex needs completionMode: Indexed")
    init = (pod.get("initContainers") or [None])[0]
    if init is None:
        return
    if "kernodeck-diagnostic" not in " ".join(map(str, init.get("args") or [])):
        problem("the first init container does not run kernodeck-diagnostic")
    env = {e.get("name"): e.get("value") for e in init.get("env") or []}
    where = init.get("terminationMessagePath", "/dev/termination-log")
    if env.get("TERMINATION_LOG") != where:
        problem(f"the verdict goes to {env.get('TERMINATION_LOG')!r}, the termination message"
                f" is read from {where!r}")
    if init.get("terminationMessagePolicy") not in ("File", "FallbackToLogsOnError"):
        problem("terminationMessagePolicy must be File or FallbackToLogsOnError")


def healthcheck_problems(text, problem):
    """The node health check drains for every failure but the image faults it is told not to:
    its list is UNDRAINED_CODES."""
    listed = HEALTH_UNDRAINED.search(text)
    if not listed:
        problem("no undrained_codes=(...): which verdicts are not the node's is not said")
    elif tuple(listed.group(1).split()) != UNDRAINED_CODES:
        problem(f"undrained_codes=({listed.group(1)}) is not {' '.join(UNDRAINED_CODES)}: a "
                "failure met after the GPU passed its own layers, the image's, must never drain a "
                "node")


def rules_problems(rules, problem):
    """The GPU alert's fault label says image for exactly IMAGE_FAULT_CODES, node otherwise."""
    alerts = [rule for group in (rules.get("groups") or []) if isinstance(group, dict)
              for rule in group.get("rules") or []
              if isinstance(rule, dict) and rule.get("alert") == GPU_ALERT]
    if len(alerts) != 1:
        problem(f"{len(alerts)} rules of alert {GPU_ALERT}, expected 1")
        return
    template = str((alerts[0].get("labels") or {}).get("fault", ""))
    listed = CODE_ALTERNATIVES.search(template)
    if not listed or "$labels.code" not in template or "image" not in template \
            or "node" not in template:
        problem(f"{GPU_ALERT}: no fault label saying image for the codes of"
                f' "^(CODE|...)$" matching $labels.code, else node: {template!r}')
    elif sorted(listed.group(1).split("|")) != sorted(IMAGE_FAULT_CODES):
        problem(f"{GPU_ALERT}: fault=\"image\" for {listed.group(1).split('|')}, not the image"
                f" faults {list(IMAGE_FAULT_CODES)}")


def jenkins_problems(text, problem):
    """No schema: the steps and their options, by text."""
    code = re.sub(r"//[^\n]*", "", text)
    if code.count("{") != code.count("}") or code.count("(") != code.count(")"):
        problem("unbalanced braces or parentheses")
    junit = re.search(r"^\s*junit\b(.*?)(?=^\s*(?:publishHTML|archiveArtifacts|\}))", code,
                      re.M | re.S)
    if not junit or JUNIT not in junit.group(1):
        problem(f"no junit step reads {JUNIT}")
    elif not re.search(r"keepProperties:\s*true", junit.group(1)):
        problem("the junit step must keep the certificate's properties (keepProperties: true)")
    html = re.search(r"publishHTML\s*\((.*?)\)\s*\n", code, re.S)
    if not html:
        problem("no publishHTML step for index.html")
    else:
        for option in (r"reportDir:\s*'reports/gpu-proof'", r"reportFiles:\s*'index\.html'",
                       r"allowMissing:\s*true"):
            if not re.search(option, html.group(1)):
                problem(f"publishHTML lacks {option.replace(chr(92), '')}")


def template_problems(templates, faults, load):
    """Every problem of the templates under `templates`, each "ci/templates/FILE: TEXT"; `load`
    parses a YAML file (a path) or raises."""
    problems = []

    def problem_in(where):
        return lambda text: problems.append(f"ci/templates/{where}: {text}")

    def parsed(name):
        try:
            return load(templates / name) or {}
        except Exception as error:  # a parse error is reported like any other problem
            problem_in(name)(f"not YAML: {error}")
            return {}

    github_problems(parsed("github-actions.yml"), problem_in("github-actions.yml"))
    gitlab_problems(parsed("gitlab-ci.yml"), problem_in("gitlab-ci.yml"))
    for path in sorted((templates / "kubernetes").glob("*.yaml")):
        name = f"kubernetes/{path.name}"
        kubernetes_problems(parsed(name), faults, problem_in(name))
    rules_problems(parsed(RULES), problem_in(RULES))
    try:
        healthcheck = (templates / HEALTHCHECK).read_text()
    except OSError as error:
        problem_in(HEALTHCHECK)(f"cannot be read: {error.strerror}")
    else:
        healthcheck_problems(healthcheck, problem_in(HEALTHCHECK))
    jenkins_problems((templates / "Jenkinsfile").read_text(), problem_in("Jenkinsfile"))
    return problems


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    from ruamel.yaml import YAML  # the venv's; the checks above need no package

    faults = fault_exit_codes(json.loads(Path(argv[2]).read_text()))
    problems = template_problems(Path(argv[1]), faults,
                                 lambda path: YAML(typ="safe").load(path.read_text()))
    for line in problems:
        print(f"templates.schema: FAILED: {line}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print("templates.schema: the templates publish the JUnit report, summary.md and index.html")


if __name__ == "__main__":
    main(sys.argv)
