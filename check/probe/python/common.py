# The python probe: the interpreter of the user's environment imports its own torch and runs
# the contract's computation in that torch, speaking the worker protocol to the check on
# descriptor 3 (check/facts/protocol.hpp). Its sections (check/probe/python/, one a stage, this
# one first) are joined by the build into one program (<build>/check/python_probe.py), built into
# the check (check/CMakeLists.txt, kd_embed) and run as `python -c PROGRAM DEVICE INDEX [ASKED]`,
# ASKED a JSON object of the modules to import, the weights files to open and the precisions to
# compute in ({"imports": [...], "weights": [...], "dtypes": [...], "compile": false,
# "private_folder": "..."}), so that it imports torch as any program of that environment started from
# the same folder does.
#
# It decides nothing. It answers the calls of the probe interface (check/probe/probe_abi.h) in the
# order the check's stages make them, stopping at the first that fails, and gives the facts
# of an import that failed (the exception's class, the module it names, the tags of torch's
# extension, whether the torch found is an installed package): the check's worker recognises
# the cause and verifies the numbers from these answers, as it does for every probe.
#
# After the computation it lists the environment's distributions that require torch, from their
# metadata alone, and imports the modules the check was asked to (--import), each in this same
# process and torch, loading every library of its distribution that links libtorch as torch
# loads an extension's ops library, then sets the bytes the weights asked (--weights) need
# against the memory this process may use, opens each as an application loads it, never running
# code from it, and computes again in each precision asked (--dtype) and of the weights (the
# application layer). It measures its resident memory at the end of each stage it finishes.
#
# Runs on Python 3.8 to 3.14 with torch 1.13 to 2.15; it writes no file, and in CPU mode it
# makes no torch.cuda call and lets no GPU driver start.
import errno
import json
import os
import re
import struct
import sys
import time

CAPACITY = 500  # the characters of a message kept (kd_error.message holds 512 bytes)


def first_line(text):
    # Terminal colours some libraries put in their messages (torch.load's) are no words.
    for line in re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", str(text)).splitlines():
        if line.strip():
            return line.strip()[:CAPACITY]
    return ""


class Channel:
    def __init__(self):
        self.out = os.fdopen(3, "w", buffering=1)
        self.start = time.monotonic()

    def send(self, **event):
        self.out.write(json.dumps(event, separators=(",", ":")) + "\n")
        self.out.flush()

    def stage(self, name):
        self.send(event="stage", stage=name)

    def answer(self, call, **fields):
        self.send(event="answer", call=call, **fields)


def errno_name(number):
    return errno.errorcode.get(number, str(number))


def ms_since(start):
    return round((time.monotonic() - start) * 1000.0, 3)


def python_version():
    return "%d.%d.%d" % sys.version_info[:3]


def environment_kind():
    if os.path.exists(os.path.join(sys.prefix, "conda-meta")):
        return "conda"
    return "virtualenv" if sys.prefix != getattr(sys, "base_prefix", sys.prefix) else "system"


