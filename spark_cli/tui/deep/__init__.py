"""The deep track on screen: its controller and ``/deep``."""
