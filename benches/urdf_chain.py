#!/usr/bin/env python3
"""Writes a URDF serial chain of N links (issue 29's growth measurement): revolute joints
about z with joint frames rotated by +-90 degrees about x in turn, full inertia tensors off the
joint axes, viscous damping. The same chain as `urdf_chain` in
spark-macros/benches/expansion.rs.

    python3 benches/urdf_chain.py 20 > /tmp/chain20.urdf
"""
import sys


def chain(n):
    out = ['<robot name="chain">', '<link name="l0"/>']
    for k in range(1, n + 1):
        roll = "1.5707963" if k % 2 == 0 else "-1.5707963"
        out.append(
            f'<link name="l{k}"><inertial><origin xyz="0.02 0.01 0.15" rpy="0.1 0.2 0.3"/>'
            f'<mass value="1.5"/><inertia ixx="0.02" ixy="0.001" ixz="-0.002" iyy="0.025" '
            f'iyz="0.003" izz="0.015"/></inertial></link>'
        )
        out.append(
            f'<joint name="j{k}" type="revolute"><parent link="l{k - 1}"/><child link="l{k}"/>'
            f'<origin xyz="0 0.05 0.3" rpy="{roll} 0 0.2"/><axis xyz="0 0 1"/>'
            f'<dynamics damping="0.1"/></joint>'
        )
    return "\n".join(out) + "\n</robot>\n"


if __name__ == "__main__":
    sys.stdout.write(chain(int(sys.argv[1])))
