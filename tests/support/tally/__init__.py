"""A third benchmark kind that exists only for the tests: counting answers where off-by-one is "close".

It is one package and one registry line (the tests add the line with monkeypatch): show, report
and compare present it through its ReadingHooks alone, which is what docs/extending.md promises."""
