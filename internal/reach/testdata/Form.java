// The reach suite's Java Swing form (run as `java Form.java`, Java 17 source launch): a named
// text field, a Greet button that changes the status label, a check box, and a button that opens a
// modal JOptionPane dialog.
import javax.swing.*;
import java.awt.*;

public class Form {
    static int count = 0;

    public static void main(String[] args) {
        SwingUtilities.invokeLater(() -> {
            JFrame f = new JFrame("Reach Swing Form");
            f.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            JPanel p = new JPanel(new GridLayout(5, 1, 4, 4));
            JTextField name = new JTextField("initial text");
            name.getAccessibleContext().setAccessibleName("Name field");
            JButton greet = new JButton("Greet");
            JLabel status = new JLabel("Status: idle");
            JCheckBox check = new JCheckBox("Subscribe");
            JButton open = new JButton("Open dialog");
            greet.addActionListener(e -> status.setText("Status: greeted " + (++count)));
            open.addActionListener(e -> {
                JOptionPane pane = new JOptionPane("This is the dialog", JOptionPane.INFORMATION_MESSAGE,
                        JOptionPane.DEFAULT_OPTION, null, new Object[] {"Close dialog"});
                JDialog d = pane.createDialog(f, "Reach Dialog");
                d.setModal(true);
                d.setVisible(true);
            });
            for (Component c : new Component[] {name, greet, status, check, open}) {
                p.add(c);
            }
            f.setContentPane(p);
            f.setSize(420, 260);
            f.setLocation(40, 40);
            f.setVisible(true);
        });
    }
}
