#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/mali-spec/generate.py on a small database of our own: the naming rule,
the equation reader, the words of a description, and what the generator does
with the database's special cases (source aliases, shifted counters, device
constants, the sample's time span, max() of many arguments) and its errors.
Runs without Arm's database, so CI tests the generator everywhere.

usage: test_mali_spec.py GENERATE.PY
"""
import importlib.util
import os
import sys
import tempfile

spec = importlib.util.spec_from_file_location("generate", sys.argv[1])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

from cli_harness import check, finish  # noqa: E402


# ---- names
for title, name in [
    ("GPU active cycles", "GPUActiveCycles"),
    ("Non-fragment queue utilization", "NonFragmentQueueUtilization"),
    ("Output external read latency 0-127 cycles", "OutputExternalReadLatency0To127Cycles"),
    ("Output external read latency 384+ cycles", "OutputExternalReadLatency384PlusCycles"),
    ("Output external outstanding reads 25-50%", "OutputExternalOutstandingReads25To50Percent"),
    ("Output external read bytes/second", "OutputExternalReadBytesPerSecond"),
    ("Load/store unit read issues", "LoadStoreUnitReadIssues"),
    ("16-bit interpolation slots", "Interpolation16BitSlots"),
    ("32-bit interpolation issue cycles", "Interpolation32BitIssueCycles"),
    ("Processing unit I-cache starvation cycles", "ProcessingUnitICacheStarvationCycles"),
    ("L2 cache read miss percentage", "L2CacheReadMissPercentage"),
]:
    check("camel_case(%r)" % title, gen.camel_case(title) == name, gen.camel_case(title))
check("phrase keeps acronyms", gen.phrase("GPU active cycles") == "GPU active cycles")
check("phrase lowers words", gen.phrase("Fragment tasks") == "fragment tasks")
check("phrase keeps L2", gen.phrase("L2 cache reads") == "L2 cache reads")

# ---- equations
tree = gen.Parser("max(A, B + C, D * 4, min(E, F))").parse()
check("max of four arguments", tree[0] == "call" and tree[1] == "max" and len(tree[2]) == 4)
tree = gen.Parser("(A - B - C) / D").parse()
check("left-associative minus", gen.flatten(tree[2], "-") == [("name", "A"), ("name", "B"),
                                                              ("name", "C")])
for bad in ("A +", "max(A)", "(A", "A $ B", "A B"):
    try:
        gen.Parser(bad).parse()
        check("rejects %r" % bad, False)
    except gen.SpecError:
        check("rejects %r" % bad, True)


# ---- a database of our own
COPYRIGHT = "<!-- a test database -->\n"


def counter(machine, human, units="cycles", source=None, alias=None, equation=None,
            gpus=("Mali-T1",), group="Test Group"):
    parts = ["<CounterInfo>", "<MachineName>%s</MachineName>" % machine]
    if source:
        parts.append("<SourceName>%s</SourceName>" % source)
    if alias:
        parts.append("<SourceAlias>%s</SourceAlias>" % alias)
    parts += ["<HumanName>%s</HumanName>" % human, "<GroupName>%s</GroupName>" % group,
              "<Units>%s</Units>" % units]
    if equation:
        parts.append("<Equation>%s</Equation>" % equation)
    parts.append("<SupportedGPUs>%s</SupportedGPUs>" % "".join("<GPU>%s</GPU>" % g for g in gpus))
    parts.append("</CounterInfo>")
    return "".join(parts)


def database(root, infos, extra_layout=""):
    for d in ("hardwarelayout", "counterinfo"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "Mali-ProductInfo.xml"), "w") as f:
        f.write(COPYRIGHT + "<ProductInfoList><ProductInfo><Id>0x7009</Id><Id>0x700a</Id>"
                "<Name>Mali-T1</Name><Name>Mali-T1 Plus</Name><Architecture>Bifrost"
                "</Architecture><DatabaseKey>Mali-T1</DatabaseKey></ProductInfo>"
                "</ProductInfoList>")
    with open(os.path.join(root, "hardwarelayout", "Mali-T1.xml"), "w") as f:
        f.write(COPYRIGHT + '<HardwareLayout gpu="Mali-T1" generated="0" source="">'
                '<CounterBlock type="GPU Front-end" bank="0" size="64">'
                '<Counter name="GPU_ACTIVE" index="6"/>'
                '<Counter name="NEW_IRQ_NAME" index="7"/></CounterBlock>'
                '<CounterBlock type="Shader Core" bank="0" size="64">'
                '<Counter name="FRAG_THREADS" index="9" shift="2"/>'
                '<Counter name="EXEC_A" index="10"/><Counter name="EXEC_B" index="11"/>'
                '<Counter name="EXEC_C" index="12"/></CounterBlock>'
                '<CounterBlock type="Memory System" bank="0" size="64">'
                '<Counter name="L2_EXT_READ_BEATS" index="32"/></CounterBlock>'
                + extra_layout + '</HardwareLayout>')
    with open(os.path.join(root, "counterinfo", "Mali-CounterInfo-00-Test.xml"), "w") as f:
        f.write(COPYRIGHT + "<CounterInfoList>" + "".join(infos) + "</CounterInfoList>")


BASE = [
    counter("MaliConfigCoreCount", "Shader core count", "instances",
            equation="MALI_CONFIG_SHADER_CORE_COUNT", group="Implementation Configuration"),
    counter("MaliConfigExtBusBeatSize", "External bus beat size", "bytes",
            equation="MALI_CONFIG_EXT_BUS_BYTE_SIZE", group="Implementation Configuration"),
    counter("MaliGPUWarpSize", "Warp size", "threads", equation="8", group="Static"),
    # Derived before the counters it reads: the generator must reorder.
    counter("MaliBusyUtil", "Busy utilization", "percent",
            equation="(MaliExecMaxCy / MaliConfigCoreCount / MaliGPUActiveCy) * 100"),
    counter("MaliGPUActiveCy", "GPU active cycles", source="GPU_ACTIVE"),
    counter("MaliGPUIRQActiveCy", "GPU interrupt pending cycles", source="IRQ_ACTIVE",
            alias="NEW_IRQ_NAME"),
    counter("MaliFragThread", "Fragment threads", "threads", source="FRAG_THREADS"),
    counter("MaliExecA", "Execution A cycles", source="EXEC_A"),
    counter("MaliExecB", "Execution B cycles", source="EXEC_B"),
    counter("MaliExecC", "Execution C cycles", source="EXEC_C"),
    counter("MaliExecMaxCy", "Busiest execution cycles",
            equation="max(MaliExecA, MaliExecB, MaliExecC * 2)"),
    counter("MaliExtBusRdBt", "Output external read beats", "beats", source="L2_EXT_READ_BEATS"),
    counter("MaliExtBusRdBy", "Output external read bytes", "bytes",
            equation="MaliExtBusRdBt * MaliConfigExtBusBeatSize"),
    counter("MaliExtBusRdBPS", "Output external read bytes/second", "bytes/second",
            equation="MaliExtBusRdBy / MALI_CONFIG_TIME_SPAN"),
    counter("MaliWarpThreads", "Threads per warp slot", "threads",
            equation="(MaliFragThread - MaliExecA) / MaliGPUWarpSize"),
    counter("MaliOtherGpu", "Not on this GPU", source="NOWHERE", gpus=("Mali-T2",)),
]


def generate(infos, extra_layout=""):
    with tempfile.TemporaryDirectory() as root:
        database(root, infos, extra_layout)
        return gen.generate(root)


def entry(text, kind, name):
    """The lines of one entry of a generated file, joined."""
    start = text.index("\n%s %s\n" % (kind, name))
    end = text.find("\n\n", start + 1)
    return " ".join(text[start:end if end > 0 else None].split())


files = generate(BASE)
check("one file per layout", list(files) == ["counters/mali-t1.counters"], list(files))
text = files["counters/mali-t1.counters"]
check("header names the source and licence", "commit 4ea7c01" in text and
      "MIT, Copyright (c) Arm Limited" in text)
check("header lists the products", "0x7009, 0x700a: Mali-T1 / Mali-T1 Plus (Bifrost)" in text)
check("header says the front end", "Its front end is a job manager (JM)" in text)
check("device constant has no value",
      "value:" not in entry(text, "constant", "MaliConfigCoreCount"))
check("fixed constant has its value", "value: 8" in entry(text, "constant", "MaliGPUWarpSize"))
raw = entry(text, "raw", "MaliHwFE_GPU_ACTIVE")
check("raw: source, hardware, group", "source: FE:6" in raw and "hardware: GPU_ACTIVE" in raw and
      "group: GPU Front-end" in raw and "usage: cycles" in raw, raw)
check("raw: L2 source", "source: L2:32" in entry(text, "raw", "MaliHwL2_L2_EXT_READ_BEATS"))
check("raw: time span", "source: TIME:ns" in entry(text, "raw", "MaliTimeSpanNs"))
shifted = entry(text, "counter", "FragmentThreads")
check("shifted counter multiplies and says so", "expression: $MaliHwSC_FRAG_THREADS * 4" in
      shifted and "note:" in shifted and "shift=2" in shifted, shifted)
check("shifted raw says so", "shift=2" in entry(text, "raw", "MaliHwSC_FRAG_THREADS"))
irq = entry(text, "counter", "GPUInterruptPendingCycles")
check("source alias read, with a note", "$MaliHwFE_NEW_IRQ_NAME" in irq and "IRQ_ACTIVE" in irq
      and "note:" in irq, irq)
check("alias is the machine name", "alias: MaliGPUActiveCy" in entry(text, "counter",
                                                                      "GPUActiveCycles"))
busiest = entry(text, "counter", "BusiestExecutionCycles")
check("max of three arguments", "expression: max($ExecutionACycles, $ExecutionBCycles, "
      "$ExecutionCCycles * 2)" in busiest, busiest)
check("max in words", "the largest of execution A cycles, execution B cycles and (execution C "
      "cycles times 2)" in busiest, busiest)
check("integer max is uint64", "type: uint64" in busiest)
util = entry(text, "counter", "BusyUtilization")
check("percentage words", "Busiest execution cycles per shader core as a percentage of GPU "
      "active cycles." in util, util)
check("percentage usage", "usage: percentage" in util and "type: float64" in util)
check("dependencies come first", text.index("\ncounter BusiestExecutionCycles\n") <
      text.index("\ncounter BusyUtilization\n") and text.index("\ncounter GPUActiveCycles\n") <
      text.index("\ncounter BusyUtilization\n"))
bps = entry(text, "counter", "OutputExternalReadBytesPerSecond")
check("time span in nanoseconds", "$OutputExternalReadBytes / ($MaliTimeSpanNs / 1000000000)"
      in bps and "usage: ratio" in bps and "note:" in bps, bps)
check("bytes are bytes", "usage: bytes" in entry(text, "counter", "OutputExternalReadBytes"))
per_warp = entry(text, "counter", "ThreadsPerWarpSlot")
check("division by a constant keeps the unit, as float64", "usage: items" in per_warp and
      "type: float64" in per_warp and "(fragment threads minus execution A cycles) divided by "
      "the warp size (8)" in per_warp, per_warp)
check("published constant counter", "expression: $MaliConfigCoreCount" in
      entry(text, "counter", "ShaderCoreCount"))
check("other GPUs' counters left out", "NotOnThisGpu" not in text and "MaliOtherGpu" not in text)
check("every line fits", all(len(line) <= 92 for line in text.splitlines()),
      max(text.splitlines(), key=len))

# ---- errors say what is wrong
for what, infos, extra, needle in [
    ("unknown source", BASE + [counter("MaliLost", "Lost cycles", source="NO_SUCH")], "",
     "MaliLost reads NO_SUCH"),
    ("unknown name in an equation", BASE + [counter("MaliBad", "Bad", equation="MaliNope + 1")],
     "", "MaliBad reads MaliNope"),
    ("two counters with one title", BASE + [counter("MaliTwin", "GPU active cycles",
                                                    source="EXEC_A")],
     "", "both title themselves"),
    ("a cycle", BASE + [counter("MaliX", "X", equation="MaliY + 1"),
                        counter("MaliY", "Y", equation="MaliX + 1")], "", "cycle"),
    ("hardware name twice", BASE, '<CounterBlock type="Tiler" bank="0" size="64">'
     '<Counter name="EXEC_A" index="4"/></CounterBlock>', "EXEC_A twice"),
    ("index outside the block", BASE, '<CounterBlock type="Tiler" bank="0" size="64">'
     '<Counter name="T" index="64"/></CounterBlock>', "outside 4..63"),
]:
    try:
        generate(infos, extra)
        check("error: " + what, False, "generated without complaint")
    except gen.SpecError as e:
        check("error: " + what, needle in str(e), str(e))

finish()
