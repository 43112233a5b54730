"""explore_keys.py N: a deterministic session of N keys for `seqrep explore
--script-file` (tests/soak/e2e_soak.sh): r changes (0/1, +/-), layer and head
sweeps, the mean head, view toggles (mask, overview, last copy only, log,
theme), PNG saves, window resizes and mouse hovers, ending with q. Ten keys a
line, LF and CRLF line ends in turn (both must replay alike)."""
import random, sys
n = int(sys.argv[1])
rng = random.Random(7)
sizes = ["900x640", "1280x860", "640x480", "1100x700"]
keys = []
while len(keys) < n - 1:
    x = rng.random()
    if x < 0.10: keys.append(rng.choice(["0", "1"]))
    elif x < 0.14: keys.append(rng.choice(["+", "-"]))
    elif x < 0.40: keys.append(rng.choice(["<left>", "<right>"]))
    elif x < 0.62: keys.append(rng.choice(["<up>", "<down>"]))
    elif x < 0.66: keys.append("a")
    elif x < 0.72: keys.append(rng.choice(["m", "o", "b", "l", "t"]))
    elif x < 0.75: keys.append("s")
    elif x < 0.78: keys.append("<resize %s>" % rng.choice(sizes))
    else: keys.append("<hover %d %d>" % (rng.randrange(600), rng.randrange(450)))
keys.append("q")
# ten keys per line, CRLF every other line (both line ends replay alike)
for i in range(0, len(keys), 10):
    end = "\r\n" if (i // 10) % 2 else "\n"
    sys.stdout.write(" ".join(keys[i:i + 10]) + end)
