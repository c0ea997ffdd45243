"""River gauge readings: parsing, summarising and flagging high water.

A small, self-contained module used as a sample of Python source code for
the bpe-tui corpora.  It reads lines such as::

    2019-04-23 23:00  4.87
    2019-04-24 00:00  4.89

and answers simple questions about them: the highest and lowest readings,
the average level per day, and the hours when the river was rising fastest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable, Iterator

__all__ = ["Reading", "Gauge", "parse_readings", "format_report"]

# Levels are in metres above the gauge datum.
FLOOD_WARNING = 3.50
FLOOD_SEVERE = 4.25
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"


class ReadingError(ValueError):
    """Raised when a line cannot be parsed as a gauge reading."""

    def __init__(self, line_no: int, line: str, reason: str) -> None:
        super().__init__(f"line {line_no}: {reason}: {line!r}")
        self.line_no = line_no
        self.line = line
        self.reason = reason


@dataclass(frozen=True, order=True)
class Reading:
    """A single measurement of the water level at a point in time."""

    when: datetime
    level: float

    @property
    def day(self) -> str:
        return self.when.strftime("%Y-%m-%d")

    def severity(self) -> str:
        if self.level >= FLOOD_SEVERE:
            return "severe"
        if self.level >= FLOOD_WARNING:
            return "warning"
        return "normal"


def parse_readings(lines: Iterable[str]) -> Iterator[Reading]:
    """Yield readings from text lines, skipping blanks and ``#`` comments.

    Raises :class:`ReadingError` for malformed lines, so that a typo in a
    notebook is noticed instead of silently ignored.
    """
    for line_no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 3:
            raise ReadingError(line_no, raw, "expected date, time and level")
        date_part, time_part, level_part = parts
        try:
            when = datetime.strptime(f"{date_part} {time_part}", TIMESTAMP_FORMAT)
        except ValueError:
            raise ReadingError(line_no, raw, "bad timestamp") from None
        try:
            level = float(level_part)
        except ValueError:
            raise ReadingError(line_no, raw, "bad level") from None
        if math.isnan(level) or level < 0:
            raise ReadingError(line_no, raw, "level out of range")
        yield Reading(when, level)


@dataclass
class Gauge:
    """A named gauge holding readings in time order."""

    name: str
    readings: list[Reading] = field(default_factory=list)

    def add(self, reading: Reading) -> None:
        # Keep the list sorted; readings usually arrive in order, so the
        # common case is a cheap append.
        if self.readings and reading < self.readings[-1]:
            self.readings.append(reading)
            self.readings.sort()
        else:
            self.readings.append(reading)

    def extend(self, readings: Iterable[Reading]) -> None:
        for reading in readings:
            self.add(reading)

    def __len__(self) -> int:
        return len(self.readings)

    def highest(self) -> Reading | None:
        return max(self.readings, key=lambda r: r.level, default=None)

    def lowest(self) -> Reading | None:
        return min(self.readings, key=lambda r: r.level, default=None)

    def daily_means(self) -> dict[str, float]:
        """Return the mean level for each calendar day, rounded to 2 dp."""
        totals: dict[str, list[float]] = {}
        for reading in self.readings:
            totals.setdefault(reading.day, []).append(reading.level)
        return {day: round(sum(v) / len(v), 2) for day, v in totals.items()}

    def fastest_rises(self, top: int = 3) -> list[tuple[Reading, float]]:
        """Return the ``top`` readings with the largest rise per hour.

        Gaps longer than six hours are ignored, because a rise measured
        across a missing night says little about how fast the water moved.
        """
        rises: list[tuple[Reading, float]] = []
        for before, after in zip(self.readings, self.readings[1:]):
            gap = after.when - before.when
            if gap <= timedelta(0) or gap > timedelta(hours=6):
                continue
            hours = gap.total_seconds() / 3600
            rises.append((after, (after.level - before.level) / hours))
        rises.sort(key=lambda pair: pair[1], reverse=True)
        return rises[:top]

    def warnings(self) -> list[Reading]:
        return [r for r in self.readings if r.severity() != "normal"]


def format_report(gauge: Gauge) -> str:
    """Build a short plain-text report suitable for a notice board."""
    if not gauge.readings:
        return f"{gauge.name}: no readings yet."
    high, low = gauge.highest(), gauge.lowest()
    assert high is not None and low is not None
    lines = [
        f"Gauge: {gauge.name}",
        f"Readings: {len(gauge)}",
        f"Highest: {high.level:.2f} m at {high.when:%d %b %Y %H:%M}",
        f"Lowest:  {low.level:.2f} m at {low.when:%d %b %Y %H:%M}",
        "",
        "Daily means:",
    ]
    for day, mean in gauge.daily_means().items():
        bar = "#" * int(mean * 10)
        lines.append(f"  {day}  {mean:5.2f}  {bar}")
    rises = gauge.fastest_rises()
    if rises:
        lines.append("")
        lines.append("Fastest rises (m/h):")
        for reading, rate in rises:
            lines.append(f"  {reading.when:%H:%M}  {rate:+.3f}")
    flagged = gauge.warnings()
    if flagged:
        lines.append("")
        lines.append(f"Warnings: {len(flagged)} reading(s) at or above {FLOOD_WARNING} m")
    return "\n".join(lines)


SAMPLE = """\
# Bellmouth north bank, spring flood
2019-04-23 21:00  4.79
2019-04-23 22:00  4.83
2019-04-23 23:00  4.87
2019-04-24 00:00  4.89
2019-04-24 01:00  4.89
2019-04-24 02:00  4.88
2019-04-24 03:00  4.84
"""


if __name__ == "__main__":
    gauge = Gauge("Bellmouth")
    gauge.extend(parse_readings(SAMPLE.splitlines()))
    print(format_report(gauge))
