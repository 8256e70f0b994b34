#!/usr/bin/env python3
"""NF graphs with the real rule sets, for the chain equivalence test and benchmark.

  equiv_graphs.py --data ../shared/data --out DIR

writes into DIR (outside the repository: the ClassBench set is not redistributable)
one graph per network function, each FromDevice(eth0) -> ... -> ToDevice(eth1), so that
`./openbox merge --chain` / `--concat` join them:

  firewall.json   HeaderClassifier "acl", first match wins, one output per rule:
                  two site rules for the sample HTTP trace's clients (192.0.2.0/28: drop;
                  192.0.2.16/28: Alert "watched client" then pass), then the 4,560
                  ClassBench rules of fw-4560.classbench (converted as for the engine
                  benchmark), every 8th dropped, every 8th+1 alerted and passed, the rest
                  passed; packets no rule matches are dropped
  firewall2.json  the same firewall (a second instance, for FW + FW)
  ips.json        HeaderPayloadClassifier "sigs": one rule per loadable Snort web rule
                  (snort-web.rules, content and pcre as one regex), each into its own
                  Alert "sid N: msg" and a Discard; a last catch-all rule passes the rest
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "obi", "bench"))
import make_graphs  # noqa: E402  (the engine benchmark's rule conversions)

SITE_RULES = [
    ({"ETH_TYPE": "0x0800", "IPV4_SRC": "192.0.2.0/28"}, "drop"),
    ({"ETH_TYPE": "0x0800", "IPV4_SRC": "192.0.2.16/28"}, "alert"),
]


def block(t, name, config=None):
    return {"type": t, "name": name, "config": config or {}}


def conn(s, sp, d, dp=0):
    return {"src": s, "src_port": sp, "dst": d, "dst_port": dp}


def terminals():
    return [block("FromDevice", "in", {"devname": "eth0"}), block("ToDevice", "out", {"devname": "eth1"})]


def firewall(data):
    rules = list(SITE_RULES)
    for i, m in enumerate(make_graphs.firewall_matches(os.path.join(data, "fw-4560.classbench"))):
        rules.append((m, "drop" if i % 8 == 0 else "alert" if i % 8 == 1 else "allow"))
    blocks = terminals() + [
        block("HeaderClassifier", "acl", {"match": [m for m, _ in rules]}),
        block("Alert", "watched", {"alerts": [{"message": "firewall: watched traffic", "severity": 2}]}),
        block("Discard", "drop"),
    ]
    conns = [conn("in", 0, "acl"), conn("watched", 0, "out")]
    for i, (_, action) in enumerate(rules):
        conns.append(conn("acl", i, {"drop": "drop", "alert": "watched", "allow": "out"}[action]))
    return {"blocks": blocks, "connectors": conns}, len(rules)


def ips(data):
    pats, skipped = make_graphs.ips_patterns(data)
    msgs = {}
    with open(os.path.join(data, "snort-web.index.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        sid_col, msg_col = head.index("sid"), head.index("msg")
        for line in f:
            cols = line.rstrip("\n").split("\t")
            msgs[int(cols[sid_col])] = cols[msg_col]
    match = [{"payload_match": [{"pattern": rx, "is_regex": True}]} for _, rx in pats] + [{}]
    blocks = terminals() + [block("HeaderPayloadClassifier", "sigs", {"match": match}), block("Discard", "drop")]
    conns = [conn("in", 0, "sigs"), conn("sigs", len(pats), "out")]
    for i, (sid, _) in enumerate(pats):
        name = "sid_%d_%d" % (sid, i)
        msg = "sid %d: %s" % (sid, msgs.get(int(sid), "Snort web rule"))
        blocks.append(block("Alert", name, {"alerts": [{"message": msg, "severity": 3}]}))
        conns += [conn("sigs", i, name), conn(name, 0, "drop")]
    return {"blocks": blocks, "connectors": conns}, len(pats), skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    os.makedirs(a.out, exist_ok=True)
    fw, nfw = firewall(data)
    ip, nips, skipped = ips(data)
    for name, g in (("firewall", fw), ("firewall2", fw), ("ips", ip)):
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(g, f)
    print("graphs in %s: firewall %d rules, ips %d rules (%d Snort rules not expressible)"
          % (a.out, nfw, nips, skipped), file=sys.stderr)


if __name__ == "__main__":
    main()
