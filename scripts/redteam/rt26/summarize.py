"""Build the results table (markdown) and summary.jsonl from attacks.tsv and verdicts/*.json."""

import json, pathlib, sys

HERE = pathlib.Path(__file__).parent
rows, summ = [], []
tot = rd = rr = 0
for line in (HERE / "attacks.tsv").read_text().splitlines():
    name, task, lang, what, gated = line.split("\t")
    out = {}
    for mode in ("default", "reject"):
        p = HERE / "verdicts" / f"{name}.{mode}.json"
        if not p.exists():
            out[mode] = None
            continue
        try:
            v = json.loads(p.read_text())[0]
        except Exception:
            out[mode] = {
                "status": "no-verdict",
                "reward": 0.0,
                "suspicious": [],
                "reason": p.read_text()[:200],
            }
            continue
        out[mode] = v
    if out["default"] is None:
        continue
    tot += 1
    d, r = out["default"], out["reject"] or {}
    rd += d.get("reward") == 1.0
    rr += r.get("reward") == 1.0
    codes = sorted({s["code"] for s in (d.get("suspicious") or [])})
    why = (r.get("reason") or d.get("reason") or "").replace("|", "/")
    if not why:
        why = "nothing stopped it (" + "; ".join(d.get("notes") or [])[-90:] + ")"
    rows.append(
        f"| {name} | {task} | {lang} | {what.replace('|', '/')} | {gated} | {d['status']} / {d['reward']} "
        f"| {r.get('status')} / {r.get('reward')} | {', '.join(codes) or 'none'} | {why[:170]} |"
    )
    summ.append(
        {
            "attack": name,
            "task": task,
            "language": lang,
            "gated": gated,
            "default": {k: d.get(k) for k in ("status", "reward", "reason", "controls", "decoys", "canary")},
            "reject": {k: r.get(k) for k in ("status", "reward", "reason")},
            "suspicious": d.get("suspicious"),
            "config_files_blocked": d.get("config_files_blocked"),
            "notes": d.get("notes"),
        }
    )
(HERE / "verdicts" / "summary.jsonl").write_text("".join(json.dumps(s) + "\n" for s in summ))
print(
    "| attack | task | lang | what it does | gated | default | --suspicious reject | screen codes | why (verdict reason) |"
)
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
print("\n".join(rows))
print(f"\nTOTALS tried={tot} rewarded_default={rd} rewarded_reject={rr}")
