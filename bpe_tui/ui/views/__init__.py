"""Full-screen views over a table: audit, evaluate, compare, and the guided tour's panel."""
