"""The feature types (the `_type` of a saved dataset's features) each datasets release declares (e-ver3, issue 26):
data, no logic. Made by tools/build_dataset_feature_types.py from huggingface/datasets' release tags
(src/datasets/features/*.py: `_type: str = field(default="NAME", ...)`).

A dataset saved by a release with a feature type the installed release lacks fails to load in features.py
generate_from_dict: `ValueError: Feature type 'List' not found. Available feature types: [...]` (datasets >= 2.20) or
`KeyError: 'List'` (older). The name is then the saved dataset's release, not the data: version_check.
"""
from __future__ import annotations


# the releases read, in order
FEATURE_RELEASES: tuple[str, ...] = (
    "1.13.0", "1.13.1", "1.13.2", "1.13.3", "1.14.0", "1.15.0", "1.15.1", "1.16.0", "1.16.1", "1.17.0",
    "1.18.0", "1.18.1", "1.18.2", "1.18.3", "1.18.4", "2.0.0", "2.1.0", "2.2.0", "2.2.1", "2.2.2",
    "2.3.0", "2.3.1", "2.3.2", "2.4.0", "2.5.0", "2.5.1", "2.5.2", "2.6.0", "2.6.1", "2.6.2",
    "2.7.0", "2.7.1", "2.8.0", "2.9.0", "2.10.0", "2.10.1", "2.11.0", "2.12.0", "2.13.0", "2.13.1",
    "2.13.2", "2.14.0", "2.14.1", "2.14.2", "2.14.3", "2.14.4", "2.14.5", "2.14.6", "2.14.7", "2.15.0",
    "2.16.0", "2.16.1", "2.17.0", "2.17.1", "2.18.0", "2.19.0", "2.19.1", "2.19.2", "2.20.0", "2.21.0",
    "3.0.0", "3.0.1", "3.0.2", "3.1.0", "3.2.0", "3.3.0", "3.3.1", "3.3.2", "3.4.0", "3.4.1",
    "3.5.0", "3.5.1", "3.6.0", "4.0.0", "4.1.0", "4.1.1", "4.2.0", "4.3.0", "4.4.0", "4.4.1",
    "4.4.2", "4.5.0", "4.6.0", "4.6.1", "4.7.0", "4.8.0", "4.8.1", "4.8.2", "4.8.3", "4.8.4",
    "4.8.5", "5.0.0", "5.0.1",
)
# feature type -> (first release read that declares it, last release read that declares it)
FEATURE_TYPES: dict[str, tuple[str, str]] = {
    "Array2D": ("1.13.0", "5.0.1"),
    "Array3D": ("1.13.0", "5.0.1"),
    "Array4D": ("1.13.0", "5.0.1"),
    "Array5D": ("1.13.0", "5.0.1"),
    "Audio": ("1.13.0", "5.0.1"),
    "ClassLabel": ("1.13.0", "5.0.1"),
    "Sequence": ("1.13.0", "3.6.0"),
    "Translation": ("1.13.0", "5.0.1"),
    "TranslationVariableLanguages": ("1.13.0", "5.0.1"),
    "Value": ("1.13.0", "5.0.1"),
    "Image": ("1.17.0", "5.0.1"),
    "LargeList": ("2.21.0", "5.0.1"),
    "Video": ("3.1.0", "5.0.1"),
    "Pdf": ("3.5.0", "5.0.1"),
    "List": ("4.0.0", "5.0.1"),
    "Nifti": ("4.4.0", "5.0.1"),
    "Json": ("4.7.0", "5.0.1"),
    "Mesh": ("5.0.0", "5.0.1"),
}
