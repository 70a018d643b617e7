"""A crawler, in miniature: frontier, URL filter, page budget, near-duplicate detection.

A crawler starts from **seed** URLs and repeats: take a URL from the **frontier**,
fetch the page, extract its links, and put every link not seen before back into the
frontier. Around that loop:

* the **URL filter** turns every link into one canonical form (:func:`canonical_url`),
  so that spellings of the same address are recognised as one, and lets a URL pass
  only once, only on allowed hosts, and only where the host's robots.txt allows;
* the **frontier** decides the order: first in, first out gives a breadth-first
  crawl (:class:`FifoFrontier`); a priority queue fetches first the URL with the most
  links pointing at it so far (:class:`BacklinkFrontier`);
* the **budget** caps the number of fetches;
* the **content filter** (:class:`NearDuplicateDetector`) recognises a page whose
  text nearly repeats one already downloaded (a mirror, a copy with a changed
  banner) and does not follow its links.

Near duplicates are found with **shingles and MinHash** (Broder, 1997). A document's
shingles are its runs of w consecutive tokens; the resemblance of two documents is
the Jaccard coefficient J(A, B) = |A ∩ B| / |A ∪ B| of their shingle sets. For a
random permutation π of the shingle ids, P[min π(A) = min π(B)] = J(A, B); with k
independent permutations, the fraction of agreeing minima estimates J with standard
deviation sqrt(J (1 − J) / k), from a fixed-size signature of k numbers per document.
Here the permutations are universal hash functions h(x) = (a x + b) mod p with
p = 2³¹ − 1, drawn from a seeded generator, applied to all shingles at once with numpy.

The fetcher is any function ``url -> Response | None``: the book's chapter simulates the
web with the Wikipedia sample. Politeness (one request at a time per host, with
pauses), re-crawling for freshness and distribution over machines are left out.
"""

from __future__ import annotations

import collections
import hashlib
import heapq
import re
import urllib.parse
import urllib.robotparser
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.sparse

from ..validation import (check_callable, check_count, check_instance, check_mapping, check_number, check_optional,
                          check_str, check_str_list, describe)
from .text import tokenize

__all__ = [
    "canonical_url",
    "UrlFilter",
    "FifoFrontier",
    "BacklinkFrontier",
    "shingles",
    "jaccard_matrix",
    "MinHasher",
    "estimate_jaccard",
    "NearDuplicateDetector",
    "Response",
    "CrawlLog",
    "crawl",
]

# ---- URLs -----------------------------------------------------------------------------

_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
# Characters left as they are when re-encoding: RFC 3986 reserved and unreserved, and "%".
_SAFE = "!$&'()*+,;=:@/?-._~%"


def _normalize_percent(part: str) -> str:
    """Decode %XX of unreserved characters, upper-case the hex of the others, and
    percent-encode what may not appear raw (non-ASCII as UTF-8, spaces)."""
    def fix(m: re.Match) -> str:
        char = chr(int(m.group(1), 16))
        return char if char in _UNRESERVED else "%" + m.group(1).upper()

    return urllib.parse.quote(_PERCENT.sub(fix, part), safe=_SAFE)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4: resolve "." and ".." segments ("/a/./b/../c" -> "/a/c")."""
    out: list[str] = []
    segments = path.split("/")
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/".join(out) or "/"


def canonical_url(url: str) -> str:
    """The canonical form of an absolute http(s) URL, so that equal addresses compare equal.

    Scheme and host are lower-cased, a default port (80, 443) is dropped, "." and ".."
    path segments are resolved, percent-encoding is normalised (unreserved characters
    decoded, other escapes in upper-case hex, non-ASCII characters encoded as UTF-8),
    an empty path becomes "/", and the fragment (``#section``, which never reaches the
    server) is dropped, as is any ``user:password@`` part. The query string is kept
    as it is, except for its encoding.

    Raises ValueError for anything but an absolute http or https URL.

    Examples
    --------
    >>> canonical_url("HTTPS://En.Wikipedia.org:443/wiki/./Anarchism#History")
    'https://en.wikipedia.org/wiki/Anarchism'
    >>> canonical_url("https://en.wikipedia.org/wiki/Aristot%c3%a9l%c4%93s") == canonical_url(
    ...     "https://en.wikipedia.org/wiki/Aristotélēs")
    True
    """
    check_str("url", url)
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"url must be an absolute http(s) URL, got {url!r}")
    host = parts.hostname  # already lower-cased by urlsplit
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"url has a bad port: {url!r}") from None
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = _remove_dot_segments(_normalize_percent(parts.path) or "/")
    query = _normalize_percent(parts.query)
    return urllib.parse.urlunsplit((scheme, netloc, path, query, ""))


@dataclass
class UrlFilter:
    """Admits each canonical URL once, on allowed hosts, where robots.txt allows it.

    Parameters
    ----------
    robots : dict host -> robots.txt text, optional
        The rules of each host, parsed by the standard library's
        ``urllib.robotparser``; hosts without an entry allow everything.
    hosts : set of str, optional
        Only these hosts are crawled (a focused crawl); every host when omitted.
    user_agent : str
        The name the crawler gives itself to robots.txt.

    ``seen`` holds every URL admitted so far; ``rejected`` counts the URLs turned
    away, by reason: "not http(s)", "other host", "robots.txt", "seen".

    Examples
    --------
    >>> f = UrlFilter(robots={"en.wikipedia.org": "User-agent: *\\nDisallow: /wiki/Special:"})
    >>> f.admit("https://en.wikipedia.org/wiki/Aristotle#Life")
    'https://en.wikipedia.org/wiki/Aristotle'
    >>> f.admit("HTTPS://en.wikipedia.org/wiki/Aristotle"), f.admit("https://en.wikipedia.org/wiki/Special:Random")
    (None, None)
    >>> dict(f.rejected)
    {'seen': 1, 'robots.txt': 1}
    """

    robots: dict[str, str] = field(default_factory=dict)
    hosts: set[str] | None = None
    user_agent: str = "mmir-crawler"
    seen: set[str] = field(default_factory=set)
    rejected: collections.Counter = field(default_factory=collections.Counter)

    def __post_init__(self) -> None:
        check_mapping("robots", self.robots)
        for host, text in self.robots.items():
            check_str("robots: host", host)
            check_str(f"robots[{host!r}]", text, allow_empty=True)
        if self.hosts is not None:
            self.hosts = set(check_str_list("hosts", self.hosts))
        check_str("user_agent", self.user_agent)
        self._parsers = {}
        for host, text in self.robots.items():
            parser = urllib.robotparser.RobotFileParser()
            parser.parse(text.splitlines())
            self._parsers[host.lower()] = parser

    def canonical(self, url: str) -> str | None:
        """:func:`canonical_url`, or None (counted as "not http(s)") for a URL a
        crawler cannot fetch, such as ``mailto:`` or a malformed address."""
        check_str("url", url, allow_empty=True)
        try:
            return canonical_url(url)
        except (TypeError, ValueError):
            self.rejected["not http(s)"] += 1
            return None

    def admit(self, url: str) -> str | None:
        """The canonical form of ``url`` if it may be crawled and was not seen before
        (it is then marked as seen), else None."""
        check_str("url", url, allow_empty=True)
        url = self.canonical(url)
        if url is None:
            return None
        host = urllib.parse.urlsplit(url).hostname
        if self.hosts is not None and host not in self.hosts:
            self.rejected["other host"] += 1
        elif host in self._parsers and not self._parsers[host].can_fetch(self.user_agent, url):
            self.rejected["robots.txt"] += 1
        elif url in self.seen:
            self.rejected["seen"] += 1
        else:
            self.seen.add(url)
            return url
        return None


# ---- frontiers ------------------------------------------------------------------------

class FifoFrontier:
    """First in, first out: the crawl is breadth-first (all pages at distance 1 from
    the seeds, then all at distance 2, ...)."""

    def __init__(self) -> None:
        self._queue: collections.deque[str] = collections.deque()

    def push(self, url: str) -> None:
        check_str("url", url)
        self._queue.append(url)

    def pop(self) -> str:
        return self._queue.popleft()

    def saw_link(self, url: str) -> None:
        """A link to ``url`` was found (breadth-first order does not care)."""

    def __len__(self) -> int:
        return len(self._queue)


class BacklinkFrontier:
    """A priority frontier: the queued URL with the most links found pointing at it so
    far comes first; ties go to the URL queued first. A classic ordering for
    discovering important pages early (Cho, Garcia-Molina and Page, 1998).

    Priorities change as links are found, so the heap is updated lazily: a URL whose
    count grows is pushed again, and stale entries are skipped when popping.

    >>> f = BacklinkFrontier()
    >>> for url in ["a", "b", "c"]:
    ...     f.push(url)
    >>> for url in ["c", "b", "c"]:
    ...     f.saw_link(url)
    >>> [f.pop() for _ in range(len(f))]
    ['c', 'b', 'a']
    """

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, str]] = []
        self._backlinks: collections.Counter = collections.Counter()
        self._queued: set[str] = set()
        self._order = 0

    def _enqueue(self, url: str) -> None:
        heapq.heappush(self._heap, (-self._backlinks[url], self._order, url))
        self._order += 1

    def push(self, url: str) -> None:
        check_str("url", url)
        self._queued.add(url)
        self._enqueue(url)

    def saw_link(self, url: str) -> None:
        """Count one more link to ``url``, raising its priority if it is queued."""
        check_str("url", url)
        self._backlinks[url] += 1
        if url in self._queued:
            self._enqueue(url)

    def pop(self) -> str:
        while self._heap:
            count, _, url = heapq.heappop(self._heap)
            if url in self._queued and -count == self._backlinks[url]:  # not a stale entry
                self._queued.remove(url)
                return url
        raise IndexError("pop from an empty frontier")

    def __len__(self) -> int:
        return len(self._queued)


# ---- shingles and MinHash -------------------------------------------------------------

_MERSENNE_31 = (1 << 31) - 1  # the prime p of the hash family h(x) = (a x + b) mod p
_SHINGLE_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constant (golden ratio)


@lru_cache(maxsize=500_000)
def _token_hash(token: str) -> int:
    """A stable 64-bit hash of one token (Python's hash() changes between runs)."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")


def _check_tokens(tokens: object) -> str | list[str]:
    """A str (shingled by characters) or a list of str tokens."""
    return tokens if isinstance(tokens, str) else check_str_list("tokens", tokens)


def shingles(tokens: Sequence[str], w: int = 4) -> np.ndarray:
    """The set of w-shingles (runs of w consecutive tokens) of a document, as sorted
    unique 64-bit ids.

    Each shingle's id is a polynomial hash of its tokens' hashes (computed for all
    shingles at once, in wrapping 64-bit arithmetic), so the same shingle gets the
    same id in every document and every run. A document shorter than w tokens is one
    shingle; an empty one has none. Pass a string to get character shingles.

    Parameters
    ----------
    tokens : sequence of str
        A tokenised document (or a string: its characters are the tokens).
    w : int
        Shingle width, >= 1.

    Returns
    -------
    (s,) uint64, sorted, no repeats.

    Examples
    --------
    >>> a = shingles("a rose is a rose is a rose".split(), w=4)
    >>> len(a)  # "a rose is a", "rose is a rose", "is a rose is" (the first comes back)
    3
    >>> bool(np.array_equal(a, shingles("is a rose is a rose".split(), w=4)))
    True
    """
    tokens = _check_tokens(tokens)
    w = check_count("w", w, low=1)
    hashes = np.array([_token_hash(t) for t in tokens], dtype=np.uint64)
    if len(hashes) == 0:
        return np.empty(0, dtype=np.uint64)
    width = min(w, len(hashes))
    ids = np.zeros(len(hashes) - width + 1, dtype=np.uint64)
    for j in range(width):  # ids = Σ_j hash(token_{i+j}) · m^(width−1−j)  (mod 2^64)
        ids = ids * _SHINGLE_MULTIPLIER + hashes[j : j + len(ids)]
    return np.unique(ids)


def _check_ids(name: str, ids: object) -> np.ndarray:
    """A non-empty 1-D array of integer ids (any integer dtype: shingle ids are uint64)."""
    if isinstance(ids, (str, bytes, Mapping)) or ids is None:
        raise TypeError(f"{name} must be a 1-D array of integer ids, got {describe(ids)}")
    try:
        array = np.asarray(ids)
    except ValueError:  # ragged
        raise TypeError(f"{name} must be a 1-D array of integer ids, got {describe(ids)}") from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer ids, got dtype {array.dtype}")
    return array


def _check_id_sets(sets: object) -> list[np.ndarray]:
    """At least one set of ids, none empty, each as a sorted unique array."""
    if isinstance(sets, (str, bytes, Mapping, np.ndarray)) or not isinstance(sets, Iterable):
        raise TypeError(f"sets must be a list of arrays of shingle ids, got {describe(sets)}")
    sets = [np.unique(_check_ids(f"sets[{i}]", s)) for i, s in enumerate(sets)]
    if not sets:
        raise ValueError("sets must not be empty: jaccard_matrix needs at least one set")
    return sets


def jaccard_matrix(sets: Sequence[np.ndarray]) -> np.ndarray:
    """Exact Jaccard coefficients J(A, B) = |A ∩ B| / |A ∪ B| of every pair of m sets of
    shingle ids, as an (m, m) array (for one pair of term sets, see
    :func:`mmir_lib.ir.scoring.jaccard`).

    The sets become the rows of a binary m×s sparse matrix X (one column per distinct
    shingle); then |A ∩ B| is an entry of X Xᵀ and |A ∪ B| = |A| + |B| − |A ∩ B|. One
    sparse product instead of m² set intersections. Raises ValueError if a set is empty.

    >>> jaccard_matrix([np.array([1, 2, 3]), np.array([2, 3, 4]), np.array([9])])
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0. ],
           [0. , 0. , 1. ]])
    """
    sets = _check_id_sets(sets)
    _, columns = np.unique(np.concatenate(sets), return_inverse=True)
    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    x = scipy.sparse.csr_array((np.ones(len(rows)), (rows, columns)))
    intersection = (x @ x.T).toarray()
    sizes = np.diag(intersection)
    return intersection / (sizes[:, None] + sizes[None, :] - intersection)


class MinHasher:
    """MinHash signatures: k seeded hash functions h_i(x) = (a_i x + b_i) mod p.

    Parameters
    ----------
    num_perm : int
        k, the length of a signature (the number of simulated permutations).
    seed : int
        Seed of the generator that draws a_i in [1, p) and b_i in [0, p).

    Notes
    -----
    The family (a x + b) mod p is not exactly min-wise independent: fed ids that
    follow a pattern, such as 0, 1, 2, ..., its estimates are biased (low, on such
    a run). Shingle ids from :func:`shingles` are hashes and look random; on them
    the estimates stay within Hoeffding's bound of the truth (``tests/ir/test_crawler.py``).

    Examples
    --------
    >>> words = [f"w{i}" for i in range(1003)]
    >>> a, b = shingles(words[:503]), shingles(words[250:])  # 500 and 750 shingles, 250 shared
    >>> hasher = MinHasher(num_perm=256, seed=0)
    >>> float(jaccard_matrix([a, b])[0, 1]), round(estimate_jaccard(hasher.signature(a), hasher.signature(b)), 3)
    (0.25, 0.277)
    """

    #: The prime modulus p = 2³¹ − 1: a_i x + b_i < 2⁶², so products fit in int64.
    PRIME = _MERSENNE_31
    #: The most hash functions (a signature of 10⁶ int64 is 8 MB per page).
    MAX_PERM = 1_000_000

    def __init__(self, num_perm: int = 128, seed: int = 0) -> None:
        num_perm = check_count("num_perm", num_perm, low=1, high=self.MAX_PERM)
        seed = check_count("seed", seed)
        rng = np.random.default_rng(seed)
        self.num_perm = int(num_perm)
        self.a = rng.integers(1, self.PRIME, size=num_perm, dtype=np.int64)
        self.b = rng.integers(0, self.PRIME, size=num_perm, dtype=np.int64)

    def signature(self, shingle_ids: np.ndarray, chunk: int = 4096) -> np.ndarray:
        """The (k,) int64 signature: for each hash function, the minimum over the shingles.

        All k functions are applied to a block of ``chunk`` shingles at once (a k×chunk
        array), and the running minimum kept, so memory stays bounded for long
        documents. Raises ValueError for an empty set (there is no minimum).
        """
        x = _check_ids("shingle_ids", shingle_ids)
        chunk = check_count("chunk", chunk, low=1)
        x = (x.astype(np.uint64) % np.uint64(self.PRIME)).astype(np.int64)  # ids into [0, p)
        signature = np.full(self.num_perm, self.PRIME, dtype=np.int64)
        for start in range(0, len(x), chunk):
            block = x[start : start + chunk]
            hashed = (self.a[:, None] * block[None, :] + self.b[:, None]) % self.PRIME  # (k, chunk)
            np.minimum(signature, hashed.min(axis=1), out=signature)
        return signature


def estimate_jaccard(signature_a: np.ndarray, signature_b: np.ndarray) -> float:
    """The fraction of positions where two MinHash signatures agree: an estimate of J."""
    signature_a = _check_ids("signature_a", signature_a)
    signature_b = _check_ids("signature_b", signature_b)
    if signature_a.shape != signature_b.shape:
        raise ValueError(f"signature_a and signature_b must have the same length, got {len(signature_a)} "
                         f"and {len(signature_b)}")
    return float(np.mean(signature_a == signature_b))


class NearDuplicateDetector:
    """Remembers the MinHash signature of every page seen and flags near duplicates.

    A text is tokenised (:func:`mmir_lib.ir.text.tokenize`), shingled with width ``w``
    and signed; if its estimated Jaccard with an earlier page reaches ``threshold``,
    :meth:`check` returns that page's key (the most similar one) and does not store
    the new page; otherwise it stores it and returns None.
    """

    def __init__(self, hasher: MinHasher | None = None, threshold: float = 0.8, w: int = 4) -> None:
        check_optional(check_instance, "hasher", hasher, kind=MinHasher)
        threshold = check_number("threshold", threshold, low=0.0, low_open=True, high=1.0)
        w = check_count("w", w, low=1)
        self.hasher = hasher or MinHasher()
        self.threshold = threshold
        self.w = w
        self.keys: list[str] = []
        self._signatures: list[np.ndarray] = []

    def check(self, key: str, text: str) -> str | None:
        """The key of an earlier near duplicate of ``text``, or None (``text`` is then stored)."""
        check_str("key", key, allow_empty=True)
        check_str("text", text, allow_empty=True)
        ids = shingles(tokenize(text), self.w)
        if len(ids) == 0:
            return None  # nothing to compare: an empty page duplicates nothing
        signature = self.hasher.signature(ids)
        if self._signatures:
            agreement = (np.stack(self._signatures) == signature).mean(axis=1)  # estimated J with each
            best = int(np.argmax(agreement))
            if agreement[best] >= self.threshold:
                return self.keys[best]
        self.keys.append(key)
        self._signatures.append(signature)
        return None


# ---- the crawl loop -------------------------------------------------------------------

@dataclass(frozen=True)
class Response:
    """What a fetch returns: a page's text and the links on it (absolute or relative
    URLs), or a redirect to ``location`` (HTTP 301)."""

    text: str = ""
    links: tuple[str, ...] = ()
    location: str | None = None

    def __post_init__(self) -> None:
        check_str("text", self.text, allow_empty=True)
        check_str_list("links", self.links)
        check_optional(check_str, "location", self.location)


@dataclass
class CrawlLog:
    """What a crawl did, step by step.

    ``fetched``: every URL fetched, in order (its length is the budget used).
    ``downloaded``: fetched pages kept (not missing, not a redirect, not a duplicate).
    ``not_found``: fetches that returned nothing (HTTP 404).
    ``redirects``: URL -> canonical URL it redirected to.
    ``duplicates``: URL -> the earlier page whose text it nearly repeats.
    ``frontier_sizes``, ``discovered``: after each fetch, the frontier's length and
    the number of distinct URLs admitted so far (fetched + queued).
    ``links_found``: links extracted from downloaded pages, repeats included.
    ``rejected``: URLs the filter turned away, by reason.
    """

    fetched: list[str] = field(default_factory=list)
    downloaded: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    redirects: dict[str, str] = field(default_factory=dict)
    duplicates: dict[str, str] = field(default_factory=dict)
    frontier_sizes: list[int] = field(default_factory=list)
    discovered: list[int] = field(default_factory=list)
    links_found: int = 0
    rejected: collections.Counter = field(default_factory=collections.Counter)


def crawl(
    seeds: Iterable[str],
    fetch: Callable[[str], Response | None],
    *,
    budget: int = 100,
    url_filter: UrlFilter | None = None,
    frontier: FifoFrontier | BacklinkFrontier | None = None,
    detector: NearDuplicateDetector | None = None,
) -> CrawlLog:
    """Crawl from ``seeds``, fetching at most ``budget`` URLs, each at most once.

    The loop: pop a URL from the frontier and fetch it (each fetch, found or not,
    uses one unit of budget). A missing page is logged. A redirect's target goes
    through the URL filter like a link. A page whose text nearly duplicates an
    earlier one (``detector``) is logged and its links are not followed. Otherwise
    each link is resolved against the page's URL, counted by the frontier (for
    priorities) and, if the filter admits it, queued.

    Parameters
    ----------
    seeds : iterable of str
        Start URLs (filtered like any link).
    fetch : callable
        ``fetch(url) -> Response | None`` (None for a page that does not exist).
    budget : int
        The most fetches, >= 1.
    url_filter, frontier, detector
        Defaults: a fresh :class:`UrlFilter` with no rules, a :class:`FifoFrontier`
        (breadth first), and no content filter.

    Returns
    -------
    CrawlLog
    """
    seeds = check_str_list("seeds", seeds)
    check_callable("fetch", fetch)
    budget = check_count("budget", budget, low=1)
    check_optional(check_instance, "url_filter", url_filter, kind=UrlFilter)
    check_optional(check_instance, "frontier", frontier, kind=(FifoFrontier, BacklinkFrontier))
    check_optional(check_instance, "detector", detector, kind=NearDuplicateDetector)
    url_filter = UrlFilter() if url_filter is None else url_filter
    frontier = FifoFrontier() if frontier is None else frontier
    log = CrawlLog(rejected=url_filter.rejected)

    def enqueue(url: str) -> str | None:
        canonical = url_filter.canonical(url)
        if canonical is not None:
            frontier.saw_link(canonical)
            if url_filter.admit(canonical) is not None:
                frontier.push(canonical)
        return canonical

    for seed in seeds:
        enqueue(seed)
    while len(frontier) and len(log.fetched) < budget:
        url = frontier.pop()
        response = fetch(url)
        if response is not None and not isinstance(response, Response):
            raise TypeError(f"fetch must return a Response or None, got {describe(response)} for {url!r}")
        log.fetched.append(url)
        if response is None:
            log.not_found.append(url)
        elif response.location is not None:
            target = enqueue(urllib.parse.urljoin(url, response.location))
            if target is not None:
                log.redirects[url] = target
        elif detector is not None and (original := detector.check(url, response.text)) is not None:
            log.duplicates[url] = original
        else:
            log.downloaded.append(url)
            log.links_found += len(response.links)
            for link in response.links:
                enqueue(urllib.parse.urljoin(url, link))
        log.frontier_sizes.append(len(frontier))
        log.discovered.append(len(url_filter.seen))
    return log
