"""@em.stencil and @em.vectorize, built on @em.jit kernels (filled in below)."""


def stencil(fn=None, **kw):
    raise NotImplementedError


def vectorize(fn=None, **kw):
    raise NotImplementedError
