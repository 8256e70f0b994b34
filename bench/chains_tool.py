#!/usr/bin/env python3
"""Helpers of bench/chains.sh (graph preparation and the summary).

  chains_tool.py subset SRC.classbench OUT FIRST COUNT
      rules FIRST .. FIRST+COUNT-1 (0-based, in file order) of a ClassBench set
  chains_tool.py swap-graph IN.json OUT.json
      the graph in the form control_bench swaps (its source named "in" as FromDump, its
      output terminals Discard, the first named "out", the first HeaderClassifier "fw")
  chains_tool.py strip-fuse IN.json OUT.json
      the graph with no classifier configured to fuse (exit status 1 when none was)
  chains_tool.py info GRAPH.json
      one JSON object: blocks, connectors, classifiers with their rule counts, and whether
      a classifier is configured as fused (config key "fuse")
  chains_tool.py summary RAW.jsonl META.jsonl
      medians over the runs, ratios, and a table on stderr
"""
import json
import statistics
import sys


def subset(src, out, first, count):
    rules = [l for l in open(src) if l.strip().startswith("@")]
    first, count = int(first), int(count)
    part = rules[first:first + count]
    if len(part) != count:
        sys.exit("chains_tool: %s has %d rules, cannot take %d from %d" % (src, len(rules), count, first))
    with open(out, "w") as f:
        f.writelines(part)


def swap_graph(src, out):
    g = json.load(open(src))
    names = {b["name"] for b in g["blocks"]}
    ren, sink_named, fw_named = {}, False, "fw" in names
    for b in g["blocks"]:
        t = b["type"]
        if t in ("FromDevice", "FromDump") and "in" not in ren.values():
            ren[b["name"]] = "in"
            b["type"], b["config"] = "FromDump", {"filename": "replayed"}
        elif t in ("ToDevice", "Discard"):
            if not sink_named and "out" not in names:
                ren[b["name"]] = "out"
                sink_named = True
            b["type"], b["config"] = "Discard", {}
        elif t == "HeaderClassifier" and not fw_named:
            ren[b["name"]] = "fw"
            fw_named = True
    taken = set(names) - set(ren)
    for old, new in ren.items():
        if new in taken:
            sys.exit("chains_tool: %s: block name %r already taken" % (src, new))
    for b in g["blocks"]:
        b["name"] = ren.get(b["name"], b["name"])
    for c in g["connectors"]:
        c["src"] = ren.get(c["src"], c["src"])
        c["dst"] = ren.get(c["dst"], c["dst"])
    json.dump(g, open(out, "w"))


def strip_fuse(src, out):
    """The graph without the classifiers' "fuse" key (they then run in sequence); exit 1 if none had it."""
    g = json.load(open(src))
    n = 0
    for b in g["blocks"]:
        if "fuse" in b.get("config", {}):
            del b["config"]["fuse"]
            n += 1
    json.dump(g, open(out, "w"))
    sys.exit(0 if n else 1)


def info(path):
    g = json.load(open(path))
    cls = []
    for b in g["blocks"]:
        if b["type"].endswith("Classifier"):
            cfg = b.get("config", {})
            cls.append({"name": b["name"], "type": b["type"], "rules": len(cfg.get("match", [])),
                        "fuse": "fuse" in cfg})
    print(json.dumps({"blocks": len(g["blocks"]), "connectors": len(g["connectors"]),
                      "classifiers": cls, "fused": any(c["fuse"] for c in cls)}))


def med(xs):
    return round(statistics.median(xs), 3) if xs else None


def summary(raw, meta_path):
    rows = [json.loads(l) for l in open(raw) if l.strip()]
    errors = {}
    for r in rows:
        if "error" in r:
            errors.setdefault((r["workload"], r["variant"]), r["error"])
    rows = [r for r in rows if "error" not in r]
    for (w, v), e in errors.items():
        print(json.dumps({"workload": w, "variant": v, "error": e}))
    meta = {}
    for l in open(meta_path):
        if l.strip():
            m = json.loads(l)
            meta.setdefault(m["workload"], {}).update(m)
    order, by = [], {}
    for r in rows:
        k = (r["workload"], r["variant"])
        if k not in by:
            order.append(k)
            by[k] = {}
        by[k][r["run"]] = r["bench"]
    summ = {}
    for k in order:
        b = list(by[k].values())
        line = {"workload": k[0], "variant": k[1], "mpps": med([x["mpps"] for x in b]),
                "gbps": med([x["gbps"] for x in b]), "ns_p50": med([x["ns_p50"] for x in b]),
                "ns_p99": med([x["ns_p99"] for x in b]), "mpps_min": min(x["mpps"] for x in b),
                "mpps_max": max(x["mpps"] for x in b), "rss_mb": max(x["rss_mb"] for x in b),
                "compile_ms": med([x["compile_ms"] for x in b]), "runs": len(b)}
        known = {"graph", "packets", "bytes", "seconds", "mpps", "gbps", "ns_p50", "ns_p99", "rss_mb", "workers",
                 "compile_ms", "trace_packets"}
        for extra in sorted(set(b[0]) - known):   # other obi bench fields (e.g. packet_path), as reported
            line[extra] = b[0][extra]
        summ[k] = line
        print(json.dumps(line))

    def ratio(a, b):
        runs = sorted(set(by.get(a, {})) & set(by.get(b, {})))
        if not runs:
            return None
        return {"mpps": med([by[a][r]["mpps"] / by[b][r]["mpps"] for r in runs]),
                "ns_p50": med([by[b][r]["ns_p50"] / by[a][r]["ns_p50"] for r in runs])}

    ratios = {}
    chains = [w for w in dict.fromkeys([k[0] for k in order] + [k[0] for k in errors] + list(meta))
              if (w, "merged") in summ or (w, "merged") in errors or "report" in meta.get(w, {})]
    for w in chains:
        m = meta.get(w, {})
        r = {"workload": w, "ratio": "merged/chained"}
        if (w, "merged") in errors:
            r["merged_error"] = errors[(w, "merged")]
        r.update(ratio((w, "merged"), (w, "chained")) or {})
        if (w, "merged_nofuse") in summ:
            r["merged_nofuse/chained"] = ratio((w, "merged_nofuse"), (w, "chained"))
        # merged vs each NF alone (the slowest NF bounds a chain of separate OBIs in series)
        for v, suffix in (("merged", ""), ("merged_nofuse", "_nofuse")):
            alone = {}
            for nf in m.get("nfs", []):
                x = ratio((w, v), (nf, "alone"))
                if x:
                    alone[nf] = x
            if alone:
                r["merged%s_vs_alone" % suffix] = alone
                # the paper's setup: chained = NFs on separate OBIs in series (the slowest NF
                # bounds it), merged = the merged graph on two OBIs with the traffic split
                slowest = min(alone, key=lambda nf: summ[(nf, "alone")]["mpps"])
                r["slowest_nf"] = slowest
                r["two_obi_estimate%s" % suffix] = round(2 * alone[slowest]["mpps"], 3)
        for key in ("merge_ms", "merge_cpu_ms", "merge_cli_ms", "swap_ms", "swap_ms_p99", "swap_first_ms",
                    "swap_obi_live_ms", "swap_obi_parse_ms", "swap_obi_compile_ms", "swap_obi_switch_ms",
                    "swap_obi_parse_cpu_ms", "swap_obi_compile_cpu_ms", "settled_swap_ms", "settled_swap_ms_p99",
                    "settled_swap_obi_live_ms", "settled_swap_obi_parse_ms", "settled_swap_obi_compile_ms",
                    "settled_swap_obi_parse_cpu_ms", "settled_swap_obi_compile_cpu_ms", "settled_swap_error",
                    "swap_error", "swap_graph", "obi_compile_ms",
                    "fused", "classifiers_merged", "classifiers_chained", "report"):
            if key in m:
                r[key] = m[key]
        for v in ("merged_nofuse", "merged"):
            if (w, v) in summ:
                r["obi_compile_ms"] = summ[(w, v)]["compile_ms"]
                r["obi_compile_graph"] = v
        ratios[w] = r
        print(json.dumps(r))

    # The table (stderr).
    e = sys.stderr
    e.write("\n%-14s %-13s %8s %8s %8s | %6s %6s  %s\n" % ("workload", "variant", "Mpps", "Gbps", "ns p50",
                                                        "m/ch", "2xm/sl", "merged / each NF alone"))
    for (w, v), err in errors.items():
        e.write("%-14s %-13s failed: %s\n" % (w, v, err[:100]))
    for k in order:
        s = summ[k]
        r = ratios.get(k[0], {})
        sfx = {"merged": "", "merged_nofuse": "_nofuse"}.get(k[1])
        mc = ma = two = ""
        if sfx is not None:
            x = r.get("mpps") if sfx == "" else (r.get("merged_nofuse/chained") or {}).get("mpps")
            mc = "%.2f" % x if x is not None else ""
            ma = " ".join("%s %.2f" % (nf, v["mpps"]) for nf, v in r.get("merged%s_vs_alone" % sfx, {}).items())
            two = "%.2f" % r["two_obi_estimate" + sfx] if "two_obi_estimate" + sfx in r else ""
        e.write("%-14s %-13s %8.3f %8.3f %8.1f | %6s %6s  %s\n" % (k[0], k[1], s["mpps"], s["gbps"], s["ns_p50"],
                                                               mc, two, ma))
    e.write("(m/ch: merged / chained, one worker; 2xm/sl: 2 x merged / slowest NF alone, the estimate of the "
            "paper's merged on two OBIs vs NFs on separate OBIs in series)\n")
    e.write("\n%-14s %9s %9s %10s %9s %9s %9s %9s %9s %6s  %s\n" % ("merged graph", "merge ms", "merge cpu",
                                                                    "compile ms", "swap ms", "obi live", "1st inst",
                                                                    "live ms", "settled", "fused",
                                                                    "classifiers of the merged graph (rules)"))
    e.write("(merge: GraphMerger wall / CPU ms; compile: obi bench; swap: control_bench SetProcessingGraph p50 "
            "under traffic, back to back, only changed blocks rebuilt; obi live: the OBI's own request received -> "
            "every worker runs the new graph, p50; 1st inst: the first install, every block built; live: merge + "
            "swap; settled: merge + swap with a second between swaps)\n")
    for w, r in ratios.items():
        def f(key):
            v = r.get(key)
            return "%.1f" % v if isinstance(v, (int, float)) else "-"
        def plus_merge(key):
            return "%.1f" % (r["merge_ms"] + r[key]) if key in r and "merge_ms" in r else "-"
        cl = ", ".join("%s %d" % (c["type"].replace("Classifier", ""), c["rules"])
                       for c in r.get("classifiers_merged", []))
        if r.get("swap_graph") == "merged_nofuse" or r.get("obi_compile_graph") == "merged_nofuse":
            cl += "  (compile / swap: without fuse)"
        if "swap_error" in r:
            cl += "  (swap failed: %s)" % r["swap_error"].splitlines()[-1][-90:]
        e.write("%-14s %9s %9s %10s %9s %9s %9s %9s %9s %6s  %s\n" % (w, f("merge_ms"), f("merge_cpu_ms"),
                                                                     f("obi_compile_ms"), f("swap_ms"),
                                                                     f("swap_obi_live_ms"), f("swap_first_ms"),
                                                                     plus_merge("swap_ms"),
                                                                     plus_merge("settled_swap_ms"),
                                                                     r.get("fused", "-"), cl))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"subset": subset, "swap-graph": swap_graph, "strip-fuse": strip_fuse, "info": info, "summary": summary}[cmd](*args)
