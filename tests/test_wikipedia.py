import collections

import pytest

from mmir_lib import data


@pytest.fixture(scope="module")
def sample():
    return data.wikipedia_sample()


def test_articles_and_redirects_are_separated(sample):
    assert len(sample.pages) == 106 and len(sample.redirects) == 100
    titles = [p.title for p in sample.pages]
    assert len(set(titles)) == len(titles)
    assert len({p.page_id for p in sample.pages}) == 106
    assert not set(titles) & set(sample.redirects)  # a redirect is not an article
    assert sample.redirects["AccessibleComputing"] == "Computer accessibility"
    assert sample.redirects["AfghanistanHistory"] == "History of Afghanistan"


def test_text_has_no_wiki_markup(sample):
    aristotle = next(p for p in sample.pages if p.title == "Aristotle")
    assert aristotle.page_id == 308
    assert "Greek philosopher and scientist born in the city of Stagira" in aristotle.text
    for page in sample.pages:
        assert "[[" not in page.text and "{{" not in page.text and "'''" not in page.text


def _links(sample, title):
    return next(p for p in sample.pages if p.title == title).links


def test_links_keep_order_anchor_and_written_form(sample):
    first = _links(sample, "Aristotle")[:4]
    assert [(l.target, l.anchor, l.written) for l in first] == [
        ("Lysippus", "Lysippus", "Lysippus"),
        ("Circa", "c.", "Circa"),  # [[Circa|c.]]
        ("Alabaster", "alabaster", "alabaster"),  # first letter upper-cased in the target only
        ("Mantle (clothing)", "mantle", "mantle (clothing)"),
    ]


def test_link_trail_joins_the_anchor(sample):
    anarchism = {(l.written, l.anchor) for l in _links(sample, "Anarchism")}
    assert ("strikebreaker", "strikebreakers") in anarchism  # [[strikebreaker]]s
    assert ("market (economics)", "markets") in anarchism  # [[market (economics)|market]]s


def test_sections_entities_and_underscores_are_normalised(sample):
    everything = [l for p in sample.pages for l in p.links]
    by_written = {l.written: l.target for l in everything}
    assert by_written["Anarchism in Italy#Postwar years and today"] == "Anarchism in Italy"
    assert by_written["AT&T Inc."] == "AT&T Inc."  # written &amp;amp; in the dump
    assert by_written["Binding energy#Mass_change"] == "Binding energy"
    assert not any(l.written.startswith("#") for l in everything)  # same-page sections skipped
    for page in sample.pages:  # ...also when written with the page's own title ([[Aristotle#Logic]])
        assert page.title not in {l.target for l in page.links}


def test_files_categories_and_other_wikis_are_skipped(sample):
    targets = collections.Counter(l.target.split(":")[0] for p in sample.pages for l in p.links if ":" in l.target)
    for prefix in ["File", "Image", "Category", "Media", "wikt", "s", "de", "fr", "nost"]:
        assert prefix not in targets
    assert targets["Wikipedia"] > 0  # [[WP:...]] and [[Wikipedia:...]] are kept, canonically named


def test_redirects_are_followed(sample):
    followed = 0
    for page in sample.pages:
        for link in page.links:
            assert link.target not in sample.redirects
            followed += data.normalize_wiki_title(link.written.split("#")[0]) in sample.redirects
    assert followed > 0


@pytest.mark.parametrize("written, expected", [
    ("anarchism", "Anarchism"),
    ("As_We_May_Think", "As We May Think"),
    ("  Binding_energy#Mass_change", "Binding energy"),
    ("WP:RCAT", "Wikipedia:RCAT"),
    ("user talk:someone", "User talk:Someone"),
    ("Star Trek: The Next Generation", "Star Trek: The Next Generation"),
    ("Image:Tree.jpg", None),
    (":Category:Atlantic hurricanes", None),
    ("Category:Anarchism", None),
    ("wikt:anarchy", None),
    ("Wikt:anarchy", None),
    (":de:Berliner Gesellschaft", None),
    ("#Classification", None),
])
def test_resolve_link(written, expected):
    namespaces = {n.lower(): n for n in ["File", "Category", "Media", "Wikipedia", "User talk", "Template"]}
    assert data._resolve_link(written, namespaces) == expected


def test_redirect_loops_terminate():
    assert data._follow("A", {"A": "B", "B": "A"}) == "B"
    assert data._follow("A", {"A": "B", "B": "C"}) == "C"


def test_missing_gensim_names_the_install_command(monkeypatch):
    monkeypatch.setattr(data.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(data.DataNotInstalledError, match="pip install gensim"):
        data._wikipedia_pages.__wrapped__()


# ---- the other loader the link-analysis chapter adds: Shakespeare in two editions ----------

def test_play_texts_in_two_editions():
    modern, folio = data.shakespeare_play_texts("modern"), data.shakespeare_play_texts("folio")
    assert set(modern) == set(data.SHAKESPEARE_PLAYS)
    assert set(folio) == set(data.SHAKESPEARE_PLAYS) - {"pericles", "troilus_and_cressida"}
    assert "To be, or not to be" in modern["hamlet"] and "Haue you had quiet Guard?" in folio["hamlet"]
    assert "Tempest" in folio["tempest"][:100] and "Winters Tale" in folio["winters_tale"][:100]
    with pytest.raises(ValueError, match="edition"):
        data.shakespeare_play_texts("quarto")
