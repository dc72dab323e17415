"""Outside sources of papers: the arXiv API, OpenAlex and Crossref (``paperchat add``)."""
