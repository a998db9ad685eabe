#!/usr/bin/env python3
"""Tests of templates_check.py (python3 ci/templates_check_test.py; no package needed)."""
import copy
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import templates_check as tc  # noqa: E402


def outcomes(**exit_codes):
    """An outcome table as kernodeck-causes --outcomes prints it, with some exit codes changed."""
    rows = [("GPU_CHECK_PASSED", 0, True), ("CPU_CHECK_PASSED", 0, True),
            ("INTERNAL_ERROR", 1, False), ("TORCH_MISSING", 3, False),
            ("TORCH_IMPORT_FAILED", 4, False), ("GPU_BACKEND_ABSENT", 5, False),
            ("GPU_UNAVAILABLE", 6, False), ("DEVICE_INDEX_INVALID", 7, False),
            ("CHECK_FAILED", 8, False), ("OUT_OF_MEMORY", 9, False), ("RUNTIME_ERROR", 9, False),
            ("TIMEOUT", 10, False), ("WORKER_FAILED", 11, False),
            ("OUTPUT_WRITE_FAILED", 12, False), ("EXTENSION_IMPORT_FAILED", 13, False),
            ("WEIGHTS_UNUSABLE", 14, False), ("BACKEND_LIBRARY_MISMATCH", 15, False),
            ("COMPILE_FAILED", 16, False)]
    return {"usage_exit_code": 2,
            "outcomes": [{"code": code, "exit_code": exit_codes.get(code, number),
                          "passed": passed} for code, number, passed in rows]}


def script(image_faults="2 3 4 5 13 14 15 16"):
    """A container's script as the templates write it, exiting with an image fault's code first."""
    return (f"set -uo pipefail\nimage_faults=({image_faults})  # FailJob's values above\n"
            "timeout -k 5 75 kernodeck-diagnostic --device-index 0 --timeout 60\n")


def job(fail=(2, 3, 4, 5, 13, 14, 15, 16), count=(6, 7, 8, 9, 10, 11, 12), args=None):
    """A Job of the fleet's kind, its policy acting on `fail` and `count`; `args`, its container's
    script, runs no check by default."""
    def rule(action, values):
        return {"action": action, "onExitCodes": {"containerName": "check", "operator": "In",
                                                  "values": list(values)}}
    container = {"name": "check"}
    if args is not None:
        container["args"] = [args]
    return {"spec": {
        "podFailurePolicy": {"rules": [
            rule("FailJob", fail), rule("Count", count),
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
        "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}


def problems_of(check, document, *args):
    found = []
    check(document, *args, found.append)
    return found


class FaultExitCodes(unittest.TestCase):
    def test_the_contracts_table_gives_the_fleets_policy(self):
        self.assertEqual(tc.fault_exit_codes(outcomes()),
                         ([2, 3, 4, 5, 13, 14, 15, 16], [6, 7, 8, 9, 10, 11, 12]))

    def test_a_module_that_fails_to_import_is_an_image_fault_never_a_node_fault(self):
        image, node = tc.fault_exit_codes(outcomes())
        for code, name in ((13, "EXTENSION_IMPORT_FAILED"), (14, "WEIGHTS_UNUSABLE"),
                           (16, "COMPILE_FAILED")):
            self.assertIn(code, image)
            self.assertNotIn(code, node)
            self.assertIn(name, tc.UNDRAINED_CODES)

    def test_the_numbers_come_from_the_table(self):
        image, node = tc.fault_exit_codes(outcomes(GPU_BACKEND_ABSENT=18, TIMEOUT=17))
        self.assertEqual(image, [2, 3, 4, 13, 14, 15, 16, 18])
        self.assertEqual(node, [6, 7, 8, 9, 11, 12, 17])

    def test_the_usage_error_is_the_tables_too(self):
        table = outcomes()
        table["usage_exit_code"] = 64
        self.assertEqual(tc.fault_exit_codes(table)[0], [3, 4, 5, 13, 14, 15, 16, 64])

    def test_a_table_without_an_image_fault_is_refused(self):
        for code in ("TORCH_MISSING", "EXTENSION_IMPORT_FAILED", "WEIGHTS_UNUSABLE"):
            table = outcomes()
            table["outcomes"] = [r for r in table["outcomes"] if r["code"] != code]
            with self.assertRaises(ValueError):
                tc.fault_exit_codes(table)


class FailurePolicy(unittest.TestCase):
    def check(self, document, table=None):
        faults = tc.fault_exit_codes(table or outcomes())
        return problems_of(tc.kubernetes_problems, document, faults)

    def test_the_fleets_policy_holds(self):
        self.assertEqual(self.check(job()), [])

    def test_a_policy_missing_an_image_fault_fails(self):
        self.assertEqual(self.check(job(fail=(2, 3, 4, 13, 14, 15, 16))),
                         ["FailJob must act on exactly [2, 3, 4, 5, 13, 14, 15, 16], not "
                          "[2, 3, 4, 13, 14, 15, 16]"])

    def test_a_policy_counting_a_failed_import_of_the_application_fails(self):
        self.assertEqual(self.check(job(fail=(2, 3, 4, 5, 14, 15, 16),
                                        count=(6, 7, 8, 9, 10, 11, 12, 13))),
                         ["FailJob must act on exactly [2, 3, 4, 5, 13, 14, 15, 16], not "
                          "[2, 3, 4, 5, 14, 15, 16]",
                          "Count must act on exactly [6, 7, 8, 9, 10, 11, 12], not "
                          "[6, 7, 8, 9, 10, 11, 12, 13]"])

    def test_a_policy_follows_a_changed_exit_code(self):
        table = outcomes(GPU_BACKEND_ABSENT=18)
        self.assertEqual(self.check(job(fail=(2, 3, 4, 13, 14, 15, 16, 18)), table), [])
        self.assertEqual(len(self.check(job(), table)), 1)

    def test_the_scripts_image_faults_are_failjobs(self):
        self.assertEqual(self.check(job(args=script())), [])
        self.assertEqual(self.check(job(args=script("2 3 4 5"))),
                         ["container 'check': image_faults=(2 3 4 5) is not FailJob's"
                          " [2, 3, 4, 5, 13, 14, 15, 16]"])
        self.assertEqual(self.check(job(args="kernodeck-diagnostic --device-index 0")),
                         ["container 'check': its script has no image_faults=(...) to exit with"
                          " an image fault's code first"])

    def test_a_counted_disruption_fails(self):
        document = job()
        document["spec"]["podFailurePolicy"]["rules"][2]["action"] = "Count"
        self.assertIn("a disruption (eviction, preemption) must be ignored, not counted",
                      self.check(document))

    def test_the_pod_must_not_restart(self):
        document = copy.deepcopy(job())
        document["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
        self.assertEqual(self.check(document),
                         ["podFailurePolicy needs the pod's restartPolicy: Never"])

    def test_the_verdict_goes_where_the_termination_message_is_read(self):
        document = job()
        document["spec"]["template"]["spec"]["initContainers"] = [{
            "name": "check", "args": [script()],
            "env": [{"name": "TERMINATION_LOG", "value": "/tmp/verdict"}],
            "terminationMessagePolicy": "File"}]
        self.assertEqual(self.check(document),
                         ["the verdict goes to '/tmp/verdict', the termination message is read "
                          "from '/dev/termination-log'"])


class NodeHealth(unittest.TestCase):
    """The health check's undrained verdicts and the GPU alert's fault label."""

    @staticmethod
    def rules(template):
        return {"groups": [{"name": "kernodeck", "rules": [
            {"alert": tc.GPU_ALERT, "labels": {"severity": "critical", "fault": template}}]}]}

    def label(self, codes):
        return (f'{{{{ if match "^({"|".join(codes)})$" $labels.code }}}}image'
                '{{ else }}node{{ end }}')

    def test_the_health_check_never_drains_for_the_application_layer(self):
        self.assertEqual(problems_of(tc.healthcheck_problems,
                                     "x=1\nundrained_codes=(EXTENSION_IMPORT_FAILED WEIGHTS_UNUSABLE "
                                     "COMPILE_FAILED)\n"), [])
        self.assertEqual(problems_of(tc.healthcheck_problems, "undrained_codes=()\n"),
                         ["undrained_codes=() is not EXTENSION_IMPORT_FAILED WEIGHTS_UNUSABLE "
                          "COMPILE_FAILED: a failure met after the GPU passed its own layers, the "
                          "image's, must never drain a node"])
        self.assertEqual(problems_of(tc.healthcheck_problems, "drain always\n"),
                         ["no undrained_codes=(...): which verdicts are not the node's is not"
                          " said"])

    def test_the_alert_labels_exactly_the_image_faults(self):
        self.assertEqual(problems_of(tc.rules_problems,
                                     self.rules(self.label(tc.IMAGE_FAULT_CODES))), [])
        without = [code for code in tc.IMAGE_FAULT_CODES if code != "EXTENSION_IMPORT_FAILED"]
        found = problems_of(tc.rules_problems, self.rules(self.label(without)))
        self.assertEqual(len(found), 1)
        self.assertIn("not the image faults", found[0])
        self.assertEqual(problems_of(tc.rules_problems, self.rules("image")),
                         [f"{tc.GPU_ALERT}: no fault label saying image for the codes of"
                          f' "^(CODE|...)$" matching $labels.code, else node: \'image\''])
        self.assertEqual(problems_of(tc.rules_problems, {}),
                         [f"0 rules of alert {tc.GPU_ALERT}, expected 1"])


class Jenkins(unittest.TestCase):
    GOOD = ("pipeline {\n  post { always {\n    junit testResults: 'reports/gpu-proof/junit.xml',"
            " keepProperties: true\n    publishHTML(target: [reportDir: 'reports/gpu-proof', "
            "reportFiles: 'index.html', allowMissing: true])\n  } }\n}\n")

    def test_the_steps_are_found(self):
        self.assertEqual(problems_of(tc.jenkins_problems, self.GOOD), [])

    def test_a_junit_step_losing_the_properties_fails(self):
        text = self.GOOD.replace("keepProperties: true", "keepProperties: false")
        self.assertEqual(problems_of(tc.jenkins_problems, text),
                         ["the junit step must keep the certificate's properties "
                          "(keepProperties: true)"])


class FleetCommand(unittest.TestCase):
    def test_the_verb_is_found_across_a_continuation(self):
        self.assertTrue(tc.FLEET_COMMAND.search("bin/kernodeck-junit \\\n  fleet reports/fleet"))
        self.assertTrue(tc.FLEET_COMMAND.search("kernodeck-junit fleet reports/fleet --expect a.0"))

    def test_the_old_option_form_is_not_the_verb(self):
        self.assertIsNone(tc.FLEET_COMMAND.search("kernodeck-junit --fleet reports/fleet"))
        self.assertIsNone(tc.FLEET_COMMAND.search("kernodeck-junit publish --reports fleet"))


class GitHub(unittest.TestCase):
    def test_an_empty_workflow_lists_what_it_lacks(self):
        found = problems_of(tc.github_problems, {})
        self.assertIn(f"0 steps use mikepenz/action-junit-report for {tc.JUNIT}, expected 1", found)
        self.assertIn(f"no step writes {tc.SUMMARY} into $GITHUB_STEP_SUMMARY", found)

    def test_an_undocumented_input_fails(self):
        step = {"uses": tc.JUNIT_ACTION, "with": {"report_paths": tc.JUNIT, "no_such": 1}}
        found = problems_of(tc.github_problems, {"jobs": {"gpu": {"steps": [step]}}})
        self.assertIn("mikepenz/action-junit-report has no input 'no_such'", found)


class TemplateProblems(unittest.TestCase):
    def test_each_problem_names_its_file_and_a_parse_error_is_one(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "kubernetes").mkdir()
            (root / "kubernetes" / "job.yaml").write_text("job")
            (root / "Jenkinsfile").write_text(Jenkins.GOOD)

            def load(path):
                if path.name == "job.yaml":
                    raise ValueError("bad indentation")
                return {}

            found = tc.template_problems(root, tc.fault_exit_codes(outcomes()), load)
        self.assertIn("ci/templates/kubernetes/job.yaml: not YAML: bad indentation", found)
        self.assertTrue(all(line.startswith("ci/templates/") for line in found))
        self.assertFalse(any(line.startswith("ci/templates/Jenkinsfile") for line in found))


if __name__ == "__main__":
    unittest.main()
