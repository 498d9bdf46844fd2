"""Pure geometry on numpy arrays: rigid transforms and convex solid builders."""
