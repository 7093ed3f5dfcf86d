"""em.linalg: products and norms (more decompositions come with their issue)."""
__all__ = []
