import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir.crawler import (BacklinkFrontier, FifoFrontier, MinHasher, NearDuplicateDetector, Response, UrlFilter,
                                 canonical_url, crawl, estimate_jaccard, jaccard_matrix, shingles)


def jaccard(a, b):
    """|A ∩ B| / |A ∪ B| of two arrays of ids, with Python sets: the reference."""
    a, b = set(a.tolist()), set(b.tolist())
    return len(a & b) / len(a | b)


# ---- URLs -------------------------------------------------------------------------------

@pytest.mark.parametrize("url, expected", [
    ("HTTP://Example.COM", "http://example.com/"),
    ("http://example.com:80/a", "http://example.com/a"),
    ("https://example.com:443/a", "https://example.com/a"),
    ("https://example.com:8443/a", "https://example.com:8443/a"),
    ("https://example.com/a/./b/../c", "https://example.com/a/c"),
    ("https://example.com/a/b/..", "https://example.com/a/"),
    ("https://example.com/../a", "https://example.com/a"),
    ("https://example.com/%7euser/%2f", "https://example.com/~user/%2F"),  # ~ is unreserved; / escaped stays
    ("https://example.com/wiki/Aristot%c3%a9l%c4%93s", "https://example.com/wiki/Aristot%C3%A9l%C4%93s"),
    ("https://example.com/wiki/Aristotélēs", "https://example.com/wiki/Aristot%C3%A9l%C4%93s"),
    ("https://example.com/a b", "https://example.com/a%20b"),
    ("https://example.com/search?q=a%2bb&x=1#top", "https://example.com/search?q=a%2Bb&x=1"),
    ("  https://example.com/wiki/Anarchism#History ", "https://example.com/wiki/Anarchism"),
])
def test_canonical_url(url, expected):
    assert canonical_url(url) == expected


segments = st.lists(st.sampled_from(["a", "B", ".", "..", "%7e", "%7E", "~", "é", "%C3%A9", "x y", "", "%2f", "?"]),
                    max_size=6)


@given(segments, st.sampled_from(["http://EX.org", "https://ex.org:443", "https://ex.org:8080"]))
def test_canonical_url_is_idempotent(parts, base):
    once = canonical_url(base + "/" + "/".join(parts) + "#frag")
    assert canonical_url(once) == once and "#" not in once


@pytest.mark.parametrize("url, error", [("mailto:someone@example.com", ValueError), ("/wiki/Relative", ValueError),
                                        ("ftp://example.com/x", ValueError), ("https://example.com:99999/", ValueError),
                                        (None, TypeError)])
def test_canonical_url_rejects_what_cannot_be_fetched(url, error):
    with pytest.raises(error, match="url must be|url has a bad port"):
        canonical_url(url)


def test_url_filter_counts_each_reason():
    f = UrlFilter(robots={"ex.org": "User-agent: *\nDisallow: /private/"}, hosts={"ex.org"})
    assert f.admit("https://EX.org/a#x") == "https://ex.org/a"
    assert f.admit("https://ex.org/a") is None  # seen
    assert f.admit("https://ex.org/private/b") is None  # robots.txt
    assert f.admit("https://other.org/a") is None  # other host
    assert f.admit("mailto:x@ex.org") is None
    assert dict(f.rejected) == {"seen": 1, "robots.txt": 1, "other host": 1, "not http(s)": 1}
    assert f.seen == {"https://ex.org/a"}


def test_robots_rules_are_per_host():
    f = UrlFilter(robots={"ex.org": "User-agent: *\nDisallow: /"})
    assert f.admit("https://ex.org/a") is None and f.admit("https://mirror.org/a") == "https://mirror.org/a"


# ---- frontiers and the crawl --------------------------------------------------------------

def site(graph: dict[str, list[str]], redirects: dict[str, str] = {}, texts: dict[str, str] = {}):
    """A fetch function for a hand-made web on host ex.org: page name -> linked names."""
    def fetch(url):
        name = url.removeprefix("https://ex.org/")
        if name in redirects:
            return Response(location="/" + redirects[name])
        if name not in graph:
            return None
        return Response(texts.get(name, f"page {name}"), tuple("/" + t for t in graph[name]))
    return fetch


def names(urls):
    return [u.removeprefix("https://ex.org/") for u in urls]


#   A ─► B ─► D ─► G          breadth first from A: A; B C; D E F; G
#   │    └──► E ─► B
#   └──► C ─► F ─► G,  C ─► A
TOY = {"A": ["B", "C"], "B": ["D", "E"], "C": ["F", "A"], "D": ["G"], "E": ["B"], "F": ["G"], "G": []}


def test_breadth_first_order():
    log = crawl(["https://ex.org/A"], site(TOY), budget=100)
    assert names(log.fetched) == ["A", "B", "C", "D", "E", "F", "G"]
    assert log.frontier_sizes == [2, 3, 3, 3, 2, 1, 0]
    assert log.discovered == [3, 5, 6, 7, 7, 7, 7]
    assert log.links_found == 9 and log.rejected["seen"] == 3  # E -> B, C -> A, F -> G


def test_backlink_frontier_fetches_the_most_linked_page_first():
    # From S: X, Y and Z are queued; X and Y both link to T, so T (2 links) comes before Z.
    web = {"S": ["X", "Y", "Z"], "X": ["T"], "Y": ["T", "U"], "Z": [], "T": [], "U": []}
    assert names(crawl(["https://ex.org/S"], site(web)).fetched) == ["S", "X", "Y", "Z", "T", "U"]
    log = crawl(["https://ex.org/S"], site(web), frontier=BacklinkFrontier())
    assert names(log.fetched) == ["S", "X", "Y", "T", "Z", "U"]


def test_budget_not_found_and_redirects():
    web = {"A": ["B", "Old", "Missing", "C#section"], "B": ["C"], "C": ["A"]}
    log = crawl(["https://ex.org/A"], site(web, redirects={"Old": "C"}), budget=3)
    assert names(log.fetched) == ["A", "B", "Old"]
    log = crawl(["https://ex.org/A"], site(web, redirects={"Old": "C"}), budget=10)
    assert names(log.fetched) == ["A", "B", "Old", "Missing", "C"]  # C once, despite three ways to reach it
    assert names(log.not_found) == ["Missing"] and log.redirects == {"https://ex.org/Old": "https://ex.org/C"}


def test_robots_rules_are_respected():
    f = UrlFilter(robots={"ex.org": "User-agent: *\nDisallow: /C"})
    log = crawl(["https://ex.org/A"], site(TOY), url_filter=f)
    assert names(log.fetched) == ["A", "B", "D", "E", "G"] and log.rejected["robots.txt"] == 1


def test_near_duplicates_are_not_expanded():
    text = " ".join(f"word{i}" for i in range(300))
    web = {"A": ["B", "Copy"], "B": [], "Copy": ["Hidden"], "Hidden": []}
    texts = {"A": text, "Copy": text.replace("word7 ", "changed ")}
    detector = NearDuplicateDetector(MinHasher(128, seed=1), threshold=0.8)
    log = crawl(["https://ex.org/A"], site(web, texts=texts), detector=detector)
    assert log.duplicates == {"https://ex.org/Copy": "https://ex.org/A"}
    assert names(log.fetched) == ["A", "B", "Copy"]  # "Hidden" is linked only from the copy


@st.composite
def webs(draw):
    n = draw(st.integers(1, 15))
    pages = [f"p{i}" for i in range(n)]
    graph = {}
    for p in pages:
        # links with spelling variants of the same URL: fragments, upper-case host, ./
        targets = draw(st.lists(st.sampled_from(pages + ["gone"]), max_size=5))
        variants = draw(st.lists(st.sampled_from(["{}", "{}#s", "https://EX.org/{}", "./{}"]),
                                 min_size=len(targets), max_size=len(targets)))
        graph[p] = [v.format(t) for v, t in zip(variants, targets)]
    return graph


def reachable(graph, start):
    bare = {p: {t.split("#")[0].split("/")[-1] for t in links} for p, links in graph.items()}
    seen, todo = {start}, [start]
    while todo:
        for t in bare.get(todo.pop(), ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


@settings(max_examples=60, deadline=None)
@given(webs(), st.integers(1, 20), st.sampled_from([FifoFrontier, BacklinkFrontier]))
def test_never_fetches_twice_and_respects_the_budget(graph, budget, frontier):
    def fetch(url):
        name = url.removeprefix("https://ex.org/")
        return Response(name, tuple("/" + t.removeprefix("./") if not t.startswith("http") else t
                                    for t in graph[name])) if name in graph else None

    log = crawl(["https://ex.org/p0"], fetch, budget=budget, frontier=frontier())
    assert len(log.fetched) == len(set(log.fetched)) <= budget
    assert all(canonical_url(u) == u for u in log.fetched)
    everything = reachable(graph, "p0")
    if budget >= len(everything):
        assert set(names(log.fetched)) == everything  # a large enough budget reaches every page
    else:
        assert len(log.fetched) == budget


# ---- shingles, Jaccard and MinHash ----------------------------------------------------------

def test_shingles_by_hand():
    assert len(shingles("a b c d e".split(), w=2)) == 4
    assert len(shingles("a b a b a b".split(), w=2)) == 2  # "a b" and "b a"
    assert len(shingles(["x", "y"], w=4)) == 1  # shorter than w: one shingle
    assert len(shingles([], w=4)) == 0
    assert len(shingles("abcab", w=3)) == 3  # characters: abc, bca, cab
    assert np.array_equal(shingles("the cat sat".split(), 2), shingles("the cat sat".split(), 2))
    assert not set(shingles("cat sat".split(), 2)) & set(shingles("sat cat".split(), 2))  # order matters


@pytest.mark.parametrize("w, error", [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError)])
def test_shingle_width_must_be_a_positive_int(w, error):
    with pytest.raises(error, match="w must be"):
        shingles(["a"], w=w)


def test_shingles_need_string_tokens():
    with pytest.raises(TypeError, match=r"tokens\[0\] must be a str"):
        shingles([1, 2, 3])


def test_exact_jaccard_by_hand():
    sets = [np.array([1, 2]), np.array([3]), np.array([2, 1, 2]), np.array([1, 2, 3, 4]), np.array([3, 4, 5])]
    j = jaccard_matrix(sets)
    assert j[0, 1] == 0.0 and j[0, 2] == 1.0 and j[3, 4] == 2 / 5 and j[1, 4] == 1 / 3


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=20), min_size=1, max_size=6))
def test_jaccard_matrix_equals_pairwise_jaccard(sets):
    sets = [np.array(s, dtype=np.uint64) for s in sets]
    expected = [[jaccard(a, b) for b in sets] for a in sets]
    assert jaccard_matrix(sets) == pytest.approx(np.array(expected), abs=1e-12)


def test_jaccard_matrix_rejects_empty_sets():
    with pytest.raises(ValueError, match=r"sets\[1\] must be a non-empty 1-D array"):
        jaccard_matrix([np.array([1]), np.array([])])
    with pytest.raises(ValueError, match="sets must not be empty"):
        jaccard_matrix([])


def word_sets(jaccard_target: float, size: int = 2000):
    """Two shingle sets of real token hashes with the given Jaccard coefficient."""
    shared = round(jaccard_target * size)
    words = [f"w{i}" for i in range(2 * size)]
    ids = np.array([shingles([w], 1)[0] for w in words])
    only = (size - shared) // 2
    a, b = ids[: shared + only], np.concatenate([ids[:shared], ids[size : size + only]])
    return a, b, shared / (shared + 2 * only)


@pytest.mark.parametrize("target", [0.0, 0.1, 0.25, 0.5, 0.8, 0.95])
def test_minhash_estimate_within_hoeffding_bound(target):
    # The estimate is the mean of k independent indicators with mean J, so by
    # Hoeffding's inequality P(|estimate − J| >= t) <= 2 exp(−2 k t²). With δ = 1e-6,
    # t = sqrt(ln(2/δ) / (2k)): a failure here would be a 1-in-a-million event, i.e. a bug.
    a, b, exact = word_sets(target)
    assert jaccard(a, b) == pytest.approx(exact)
    k, seeds, delta = 256, 10, 1e-6
    t_single = math.sqrt(math.log(2 / delta) / (2 * k))
    t_mean = math.sqrt(math.log(2 / delta) / (2 * k * seeds))
    estimates = []
    for seed in range(seeds):
        hasher = MinHasher(num_perm=k, seed=seed)
        estimates.append(estimate_jaccard(hasher.signature(a), hasher.signature(b)))
    assert max(abs(e - exact) for e in estimates) <= t_single
    assert abs(np.mean(estimates) - exact) <= t_mean


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="abcde", min_size=1, max_size=3), min_size=1, max_size=40), st.integers(0, 2**32))
def test_identical_sets_estimate_one(tokens, seed):
    ids = shingles(tokens, 2)
    hasher = MinHasher(num_perm=64, seed=seed)
    assert estimate_jaccard(hasher.signature(ids), hasher.signature(ids[::-1].copy())) == 1.0


def test_signatures_are_deterministic_and_chunking_does_not_matter():
    ids = shingles([f"t{i}" for i in range(5000)], 3)
    one, two = MinHasher(32, seed=7), MinHasher(32, seed=7)
    assert np.array_equal(one.signature(ids), two.signature(ids, chunk=333))
    assert not np.array_equal(one.signature(ids), MinHasher(32, seed=8).signature(ids))


def test_minhash_bad_input():
    with pytest.raises(ValueError, match="non-empty"):
        MinHasher().signature(np.array([], dtype=np.uint64))
    with pytest.raises(ValueError, match="num_perm"):
        MinHasher(num_perm=0)
    with pytest.raises(ValueError, match="must have the same length"):
        estimate_jaccard(np.zeros(3, dtype=np.int64), np.zeros(4, dtype=np.int64))
    with pytest.raises(TypeError, match="signature_a must hold integer ids"):
        estimate_jaccard(np.zeros(3), np.zeros(3))
    with pytest.raises(TypeError, match="fetch must return a Response or None"):
        crawl(["https://a.org/"], lambda url: "<html>")
    with pytest.raises(ValueError, match="threshold"):
        NearDuplicateDetector(threshold=0)
    with pytest.raises(ValueError, match="budget"):
        crawl([], lambda url: None, budget=0)


def test_detector_keeps_distinct_pages_and_ignores_empty_ones():
    detector = NearDuplicateDetector(MinHasher(64, seed=0))
    assert detector.check("a", "the quick brown fox jumps over the lazy dog") is None
    assert detector.check("b", "an entirely different sentence about retrieval and crawling") is None
    assert detector.check("c", "The quick brown fox jumps over the lazy dog!") == "a"  # same tokens
    assert detector.check("d", "") is None and detector.keys == ["a", "b"]
