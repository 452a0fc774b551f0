"""What the wrong-answer tests share: a failed check must fail for the reason given."""


def failed(report) -> list[str]:
    return [r.name for r in report.results if not r.passed]


def assert_fails_with(report, *fragments: str) -> None:
    names = failed(report)
    assert not report.passed and names, report.render()
    for fragment in fragments:
        assert any(fragment in name for name in names), f"expected a failure about {fragment!r}:\n{report.render()}"
