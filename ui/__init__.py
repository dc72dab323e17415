"""The Gradio chat (the only package that imports gradio); it arrives with `paperchat serve`."""
