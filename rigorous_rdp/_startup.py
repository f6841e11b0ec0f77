"""Imported first by the package: on the command line, Ctrl-C while the package is being
imported ends the process with one line and status 130 (:func:`.budget.quiet_startup_interrupt`)."""

from .budget import quiet_startup_interrupt

quiet_startup_interrupt()
