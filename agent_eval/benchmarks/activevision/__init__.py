"""ActiveVision-style static-image benchmark: loader, scoring, the procedural sample generators."""
