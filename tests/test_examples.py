"""examples/digits_cnn.py runs (a few epochs), resumes from its checkpoint with the same losses
as an uninterrupted run, and trains as torch 2.13 does: from the same initial weights and batch
order, the same loss at every step (1e-8, float64)."""
import importlib.util
import pathlib

import numpy as np
import pytest

import fgrad

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "digits_cnn.py"


def _load():
    spec = importlib.util.spec_from_file_location("digits_cnn", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


digits = _load()


def test_a_short_run_learns_and_resumes_with_the_same_losses(tmp_path):
    straight = digits.train(epochs=2, progress=False)
    assert len(straight["losses"]) == 2 * 22 and straight["accuracy"] > 0.5  # (chance: 0.1)
    assert np.mean(straight["losses"][22:]) < 0.9 * np.mean(straight["losses"][:22])
    checkpoint = tmp_path / "digits.pt"
    first = digits.train(epochs=2, checkpoint=checkpoint, progress=False)
    assert first["losses"] == straight["losses"]  # (seeded: runs repeat)
    # a fresh run that stops after epoch 1 and one resumed from that checkpoint
    digits.train(epochs=2, checkpoint=checkpoint, progress=False, stop_after=1)
    resumed = digits.train(epochs=2, checkpoint=checkpoint, resume=True, progress=False)
    np.testing.assert_array_equal(resumed["losses"], straight["losses"][22:])
    assert resumed["accuracy"] == straight["accuracy"]


def test_fgrad_and_torch_train_alike_step_for_step():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    fgrad.manual_seed(0)
    x_train, y_train, _, _ = digits.load_data(np.float64)
    model = digits.make_model(fgrad.float64)
    tmodel = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(128, 10)).double()
    with torch.no_grad():
        for name, p in tmodel.named_parameters():
            p.copy_(torch.tensor(model.state_dict()[name].numpy()))
    loader = fgrad.utils.data.DataLoader(fgrad.utils.data.TensorDataset(fgrad.tensor(x_train), fgrad.tensor(y_train)),
                                         batch_size=64, shuffle=True, generator=fgrad.Generator().manual_seed(1))
    runs = []
    for lib, m in ((fgrad, model), (torch, tmodel)):
        optimizer = lib.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=1e-4)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=2)
        runs.append((m, optimizer, scheduler, lib.nn.CrossEntropyLoss()))
    for epoch in range(2):
        for images, labels in loader:
            (fm, fopt, _, floss), (tm, topt, _, tloss) = runs
            fl = digits.train_step(fm, fopt, floss, images, labels)
            tl = digits.train_step(tm, topt, tloss, torch.tensor(images.numpy()), torch.tensor(labels.numpy()))
            assert abs(fl - tl) <= 1e-8 * max(1.0, abs(tl)), (epoch, fl, tl)
        runs[0][2].step()
        runs[1][2].step()
    for name, p in tmodel.named_parameters():
        np.testing.assert_allclose(model.state_dict()[name].numpy(), p.detach().numpy(), rtol=1e-8, atol=1e-10)
