"""Evaluation of a vendor's random outcomes (dice and pai gow shuffles): see tablecert.rng.api."""
