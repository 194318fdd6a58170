def main():
    raise SystemExit("image tools: not built yet")
