#!/usr/bin/env python3
"""CSV output reads back with Python's csv module and with numpy (CTest cli.csv_readback).

Runs a few dpkit commands with --format csv whose cells contain commas (the PLD method text
"PLD/FFT, h = ..., FFT ..., 2 passes") and checks: every record has as many cells as the
header (RFC 4180 quoting), the numbers equal those of --format json, and numpy.loadtxt reads the
numeric columns (skipped, with a message, where numpy is not installed).

usage: csv_readback.py DPKIT
"""
import csv
import io
import json
import subprocess
import sys

COMMANDS = [
    ["epsilon", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "1000",
     "--delta", "1e-5", "--accountant", "all"],
    ["delta", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "1000",
     "--epsilon", "2", "--accountant", "all"],
    ["calibrate", "--epsilon", "2", "--delta", "1e-5", "--sampling-rate", "0.01",
     "--steps", "1000"],
    ["tradeoff", "--noise-multiplier", "1", "--sampling-rate", "0.1", "--steps", "10",
     "--points", "5"],
]


def run(dpkit, args):
    p = subprocess.run([dpkit] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAILED (%d): dpkit %s\n%s" % (p.returncode, " ".join(args), p.stderr))
    return p.stdout


def main():
    dpkit = sys.argv[1]
    try:
        import numpy
    except ImportError:
        numpy = None
        print("csv_readback: numpy is not installed; checking with the csv module only")
    failures = []
    commas = 0
    for args in COMMANDS:
        text = run(dpkit, args + ["--format", "csv"])
        rows = list(csv.reader(io.StringIO(text)))
        header, body = rows[0], rows[1:]
        doc = json.loads(run(dpkit, args + ["--format", "json"]))
        if len(body) != len(doc["results"]):
            failures.append("%s: %d CSV rows, %d JSON results" % (args[0], len(body),
                                                                  len(doc["results"])))
        for row, result in zip(body, doc["results"]):
            if len(row) != len(header):
                failures.append("%s: %d cells under a %d-cell header: %r" % (
                    args[0], len(row), len(header), row))
                continue
            commas += sum("," in cell for cell in row)
            for name, cell in zip(header, row):
                value = result.get(name)
                if isinstance(value, float) and cell and float(cell) != value:
                    failures.append("%s: %s = %s in CSV, %r in JSON" % (args[0], name, cell,
                                                                      value))
        if numpy is not None:
            numeric = [i for i, name in enumerate(header)
                       if all(c == "" or _is_number(c) for c in (r[i] for r in body))
                       and any(c != "" for c in (r[i] for r in body))]
            table = numpy.loadtxt(io.StringIO(text), delimiter=",", skiprows=1,
                                  usecols=numeric, quotechar='"', ndmin=2,
                                  converters=lambda s: float(s) if s else float("nan"))
            if table.shape != (len(body), len(numeric)):
                failures.append("%s: numpy read shape %s" % (args[0], table.shape))
    if commas == 0:
        failures.append("no cell with a comma was produced: the test checks nothing")
    if failures:
        sys.exit("\n".join(failures))
    print("csv_readback: %d commands, every row read back (%d cells with commas)%s" % (
        len(COMMANDS), commas, "" if numpy is None else ", numpy.loadtxt agrees"))


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


if __name__ == "__main__":
    main()
