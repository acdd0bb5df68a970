"""What a server says about its model's window: parsed (:mod:`.answers`), asked for
(:mod:`.probe`), and its overflow answers (:mod:`.overflow`); see docs/providers.md."""
