import sys, os, patchbench as pb

src = sys.argv[1]
tid = sys.argv[2]
out = sys.argv[3]
ds = pb.load(src)
t = [x for x in ds.tasks if x.id == tid][0]
wm = t.workspace_map if not callable(t.workspace_map) else None
print(type(t.workspace), t.workspace[:1] if t.workspace else None)
print("test:", t.test)
print("F2P", t.fail_to_pass)
print("P2P", t.pass_to_pass)
print("hidden", type(t.hidden_tests))
print("repo", t.repository)
print("env", t.env)
print("verifier", t.verifier)
os.makedirs(out, exist_ok=True)


def w(base, items):
    for f in items:
        p = getattr(f, "path", None) or f[0]
        c = getattr(f, "content", None) if hasattr(f, "content") else f[1]
        fp = os.path.join(out, base, p)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        open(fp, "w").write(c)


w("ws", t.workspace)
w("hidden", t.hidden_tests)
open(os.path.join(out, "gold.diff"), "w").write(t.gold_patch or "")
open(os.path.join(out, "prompt.md"), "w").write(t.prompt or "")
