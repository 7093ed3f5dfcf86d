"""Seed 003 ("Python for GPU computing"): check what devices there are, pick
one, and compute with NumPy's spelling on it -- the article's CuPy
a + b, in Ember."""
import ember as em

print("CUDA available:", em.cuda.is_available())
for d in em.devices():
    print(" ", d, "-", d.attributes["name"])
dev = em.get_device()          # the best device found: the first GPU, else the CPU
print("using", dev)

with em.Device(dev):
    a = em.array([1, 2, 3])
    b = em.array([4, 5, 6])
    c = a + b
print("a + b =", c, "on", c.device)
print("back on the host:", em.asnumpy(c))
