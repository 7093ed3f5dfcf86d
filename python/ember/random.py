"""em.random: a counter-based Philox4x32-10 generator."""
