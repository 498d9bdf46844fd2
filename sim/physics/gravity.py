"""Gravity and the probe: the acceleration every piece of a world feels, and the solver's precision.

:class:`Gravity` is the part of :class:`~sim.physics.world.World` that sets
them (see its attributes); the probe is a tilt of gravity by a tiny
horizontal acceleration, fixed or turning once around every
``settings.probe_period``.
"""

from __future__ import annotations

import numpy as np

from sim.physics.bodies import GRAVITY, pb


class Gravity:
    """Gravity, the probe and the solver's precision of a world."""

    def set_probe(self, accel_g: float, direction_deg: float | None = None) -> None:
        """A uniform horizontal acceleration on every piece (a tilt of gravity).

        Args:
            accel_g: magnitude as a fraction of g (0 switches it off).
            direction_deg: its direction in the xy plane (degrees from +x);
                None turns it once around every ``settings.probe_period`` seconds,
                starting along +x.
        """
        self._probe = (float(accel_g), direction_deg)
        self.refresh_gravity()
        if self._sleep is not None:  # a new push: every island must withstand it afresh
            self._sleep.wake()

    @property
    def probe(self) -> tuple[float, float | None]:
        """The probe: (acceleration in g, direction in degrees, None while it turns)."""
        return self._probe

    @property
    def probe_direction(self) -> float | None:
        """The probe's fixed direction (degrees), None when it turns (or is off)."""
        return self._probe[1] if self._probe[0] != 0.0 else None

    @property
    def probe_turning(self) -> bool:
        """The probe is on and turns around."""
        return self._probe[0] != 0.0 and self._probe[1] is None

    @property
    def gravity(self) -> np.ndarray:
        """(3,) the acceleration every piece feels (m/s²): gravity tilted by the probe."""
        return self._gravity.copy()

    def refresh_gravity(self) -> None:
        """Give the engine the current gravity (the probe's direction at the current time).

        Bullet keeps the gravity a body had when it fell asleep: a woken body needs it again.
        """
        accel, direction = self._probe
        angle = 2 * np.pi * self.time / self.settings.probe_period if direction is None else np.radians(direction)
        g = GRAVITY * np.array([accel * np.cos(angle), accel * np.sin(angle), -1.0])
        self._gravity = g
        pb.setGravity(*(g * self._scale), physicsClientId=self._cid)

    def get_precision(self) -> tuple[float, int]:
        """The solver's convergence tolerance (m/s) and iteration bound now (the settings' until set)."""
        return self._precision or (self.settings.residual_velocity, self.settings.solver_iterations)

    def set_precision(self, residual_velocity: float, iterations: int | None = None) -> None:
        """The solver's convergence tolerance (m/s) and iteration bound from now on.

        See ``PhysicsSettings.residual_velocity`` and ``solver_iterations``.
        """
        iterations = iterations or self.settings.solver_iterations
        self._precision = (float(residual_velocity), int(iterations))
        if self.settings.configure_engine:
            pb.setPhysicsEngineParameter(solverResidualThreshold=(residual_velocity * self._scale) ** 2,
                                         numSolverIterations=iterations, physicsClientId=self._cid)
